// The MLP predictor on the WebAssembly SIMD kernel (mlp-simd.wat, assembled by `npm run build`
// into dist/ml/mlp-simd.wasm), and the choice between it and the scalar MlpPredictor.
//
// f64x2, not f32x4: the kernel computes every prediction bit for bit as MlpPredictor does (the
// lanes are different outputs, each summed in input order, with the same double roundings; see
// the .wat), so backtests give byte-identical results whichever path runs. f32x4 would do twice
// the multiply-adds per instruction, but move predictions by ~1e-7 relative and with them the
// engine's quote decisions near a threshold; f64x2 meets the speed goal without that.
//
// predict() allocates nothing: it copies the features into the module's memory, calls `run`
// (no arguments, no result: hot-path rule 3) and reads the result
// from the memory, as MlpPredictor reads its own from a typed array.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../core/paths.ts';
import { MlpPredictor, multiplyAdds, validateModel, type ModelFile } from './model.ts';
import type { Predictor } from './predictor.ts';

/** The assembled kernel, relative to the package root (build.mjs writes it). */
export const SIMD_KERNEL_PATH = join('dist', 'ml', 'mlp-simd.wasm');

// Memory layout shared with mlp-simd.wat: i32 header slots (byte offsets), f64 slots (indices of
// a Float64Array over the memory) and where the arrays start.
const H_NIN = 0,
  H_NLAYERS = 4,
  H_MEAN = 8,
  H_INVSTD = 12,
  H_BUFA = 16,
  H_BUFB = 20,
  H_LAYERS = 24;
const F_CLIP = 4,
  F_SCALE = 5,
  F_OFFSET = 6,
  F_RESULT = 7,
  F_X = 8;
const LAYER_BYTES = 20;
const PAGE = 65536;

// The part of the WebAssembly JS API used here. Node has it all, but the types live in the DOM
// lib, which this (Node) project does not load.
interface WasmModule {
  readonly __wasmModule: unique symbol;
}
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
const Wasm = (
  globalThis as unknown as {
    WebAssembly: {
      validate(bytes: Uint8Array): boolean;
      Module: new (bytes: Uint8Array) => WasmModule;
      Instance: new (module: WasmModule) => { exports: { memory: WasmMemory; run: () => void } };
    };
  }
).WebAssembly;

export type SimdKernel = { ok: true; module: WasmModule } | { ok: false; reason: string };

let kernel: SimdKernel | null = null;

/** The compiled kernel, once per thread; not ok when this runtime lacks SIMD or the build did not make it. */
export function simdKernel(): SimdKernel {
  if (kernel) return kernel;
  const path = join(packageRoot(), SIMD_KERNEL_PATH);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return (kernel = { ok: false, reason: `${path}: ${(e as Error).message} (npm run build makes it)` });
  }
  // validate() is false when the engine does not know the v128 instructions (no SIMD).
  if (!Wasm.validate(bytes)) return (kernel = { ok: false, reason: `${path}: not valid WebAssembly here (no SIMD support?)` });
  return (kernel = { ok: true, module: new Wasm.Module(bytes) });
}

/** The engine's predictor for `model`: the SIMD kernel when it is available, else the scalar path (same predictions). */
export function createPredictor(model: ModelFile, k: SimdKernel = simdKernel()): SimdMlpPredictor | MlpPredictor {
  return k.ok ? new SimdMlpPredictor(model, k.module) : new MlpPredictor(model);
}

const even = (n: number): number => n + (n & 1);
const align16 = (bytes: number): number => (bytes + 15) & ~15;

export class SimdMlpPredictor implements Predictor {
  readonly kernel = 'wasm-simd-f64x2';
  readonly horizonNs: number;
  readonly version: string;
  readonly multiplyAdds: number;
  private readonly nIn: number;
  private readonly mem: Float64Array;
  private readonly run: () => void;

  constructor(model: ModelFile, module: WasmModule) {
    const v = validateModel(model);
    if (!v.ok) throw new Error(`invalid model: ${v.error}`);
    this.horizonNs = model.horizonNs;
    this.version = model.modelVersion;
    this.multiplyAdds = multiplyAdds(model);
    this.nIn = model.features.length;

    // Where everything goes, in bytes: x, mean, invStd, two activation buffers, the layer
    // table, then per layer its transposed weights and its bias (outputs padded to even).
    let at = F_X * 8;
    const take = (bytes: number): number => {
      const start = at;
      at = align16(at + bytes);
      return start;
    };
    const width = Math.max(even(this.nIn), ...model.layers.map((l) => even(l.outputs)));
    take(even(this.nIn) * 8); // x
    const mean = take(even(this.nIn) * 8);
    const invStd = take(even(this.nIn) * 8);
    const bufA = take(width * 8);
    const bufB = take(width * 8);
    const table = take(model.layers.length * LAYER_BYTES);
    const placed = model.layers.map((l) => ({ w: take(l.inputs * even(l.outputs) * 8), b: take(even(l.outputs) * 8) }));

    const instance = new Wasm.Instance(module);
    const memory = instance.exports.memory;
    const pages = Math.ceil(at / PAGE) - memory.buffer.byteLength / PAGE;
    if (pages > 0) memory.grow(pages);
    const i32 = new Int32Array(memory.buffer);
    const f64 = new Float64Array(memory.buffer);
    i32[H_NIN / 4] = this.nIn;
    i32[H_NLAYERS / 4] = model.layers.length;
    i32[H_MEAN / 4] = mean;
    i32[H_INVSTD / 4] = invStd;
    i32[H_BUFA / 4] = bufA;
    i32[H_BUFB / 4] = bufB;
    i32[H_LAYERS / 4] = table;
    f64[F_CLIP] = model.normalization.clip;
    f64[F_SCALE] = model.output.scale;
    f64[F_OFFSET] = model.output.offset;
    f64.set(model.normalization.mean, mean / 8);
    f64.set(
      model.normalization.std.map((s) => 1 / s),
      invStd / 8,
    );
    model.layers.forEach((l, k) => {
      const nOut = even(l.outputs);
      const { w, b } = placed[k];
      i32.set([l.inputs, nOut, l.activation === 'relu' ? 1 : 0, w, b], (table + k * LAYER_BYTES) / 4);
      for (let o = 0; o < l.outputs; o++) {
        for (let i = 0; i < l.inputs; i++) f64[w / 8 + i * nOut + o] = l.weights[o * l.inputs + i];
      }
      f64.set(l.bias, b / 8);
    });
    this.mem = f64;
    this.run = instance.exports.run;
  }

  /** Expected mid move over the horizon, ticks. Allocation-free (see the file comment). */
  predict(features: Float64Array): number {
    const m = this.mem;
    for (let i = 0; i < this.nIn; i++) m[F_X + i] = features[i];
    this.run();
    return m[F_RESULT];
  }
}
