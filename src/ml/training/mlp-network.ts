// The network under training: a fully connected MLP (ReLU hidden layers, linear output) with
// its weights per layer in Float64Arrays, a forward pass, and backpropagation that accumulates
// the gradient over a minibatch. The forward pass adds the terms of each unit in input order,
// as MlpPredictor (model.ts) does at run time, so a trained net predicts the same bits there.

import type { Rng } from '../../core/rng.ts';
import type { LayerSpec } from '../inference/model.ts';

/** Weights and biases of every layer (a copy of the best epoch's, say). */
export interface MlpParams {
  w: Float64Array[];
  b: Float64Array[];
}

export class MlpNetwork {
  readonly sizes: number[];
  readonly w: Float64Array[];
  readonly b: Float64Array[];
  /** Gradient accumulators, the shapes of w and b. */
  readonly gw: Float64Array[];
  readonly gb: Float64Array[];
  /** Activations per layer (a[0] = input), and backpropagated errors. */
  private readonly a: Float64Array[];
  private readonly delta: Float64Array[];

  /** Random initial weights from `rng`, zero biases. `sizes` = [inputs, ...hidden, 1]. */
  constructor(sizes: number[], rng: Rng) {
    this.sizes = sizes;
    const L = sizes.length - 1;
    this.w = [];
    this.b = [];
    for (let k = 0; k < L; k++) {
      const nIn = sizes[k],
        nOut = sizes[k + 1];
      // He-uniform for ReLU layers, Glorot-uniform for the linear output
      const lim = k < L - 1 ? Math.sqrt(6 / nIn) : Math.sqrt(6 / (nIn + nOut));
      const w = new Float64Array(nIn * nOut);
      for (let i = 0; i < w.length; i++) w[i] = (2 * rng.next() - 1) * lim;
      this.w.push(w);
      this.b.push(new Float64Array(nOut));
    }
    this.gw = this.w.map((x) => new Float64Array(x.length));
    this.gb = this.b.map((x) => new Float64Array(x.length));
    this.a = sizes.map((n) => new Float64Array(n));
    this.delta = sizes.map((n) => new Float64Array(n));
  }

  /** Forward pass of one normalised input row x[off..]; returns the (normalised) output. */
  forward(x: Float64Array, off: number): number {
    const L = this.sizes.length - 1;
    const a0 = this.a[0];
    for (let i = 0; i < this.sizes[0]; i++) a0[i] = x[off + i];
    for (let k = 0; k < L; k++) {
      const nIn = this.sizes[k],
        nOut = this.sizes[k + 1];
      const w = this.w[k],
        b = this.b[k],
        src = this.a[k],
        dst = this.a[k + 1];
      const relu = k < L - 1;
      for (let o = 0; o < nOut; o++) {
        let s = b[o];
        const row = o * nIn;
        for (let i = 0; i < nIn; i++) s += w[row + i] * src[i];
        dst[o] = relu && s < 0 ? 0 : s;
      }
    }
    return this.a[L][0];
  }

  /** Adds the gradient of the loss to gw/gb, given dLoss/dOutput at the last forward pass. */
  backward(dOut: number): void {
    const L = this.sizes.length - 1;
    this.delta[L][0] = dOut;
    for (let k = L - 1; k >= 0; k--) {
      const nIn = this.sizes[k],
        nOut = this.sizes[k + 1];
      const w = this.w[k],
        gw = this.gw[k],
        gb = this.gb[k],
        src = this.a[k],
        d = this.delta[k + 1];
      for (let o = 0; o < nOut; o++) {
        const e = d[o];
        if (e === 0) continue;
        gb[o] += e;
        const row = o * nIn;
        for (let i = 0; i < nIn; i++) gw[row + i] += e * src[i];
      }
      if (k > 0) {
        const dp = this.delta[k];
        for (let i = 0; i < nIn; i++) {
          if (src[i] <= 0) {
            dp[i] = 0; // ReLU was off (src is the layer's post-activation output)
            continue;
          }
          let s = 0;
          for (let o = 0; o < nOut; o++) s += w[o * nIn + i] * d[o];
          dp[i] = s;
        }
      }
    }
  }

  zeroGrad(): void {
    for (const g of this.gw) g.fill(0);
    for (const g of this.gb) g.fill(0);
  }

  /** Mean squared error on normalised inputs (rows of `nIn`) against normalised labels. */
  mse(xn: Float64Array, yn: Float64Array): number {
    const nIn = this.sizes[0];
    let s = 0;
    for (let i = 0; i < yn.length; i++) {
      const e = this.forward(xn, i * nIn) - yn[i];
      s += e * e;
    }
    return s / yn.length;
  }

  snapshot(): MlpParams {
    return { w: this.w.map((x) => x.slice()), b: this.b.map((x) => x.slice()) };
  }

  /** `p` as the model file's layers. */
  layers(p: MlpParams): LayerSpec[] {
    const L = this.sizes.length - 1;
    return p.w.map((w, k) => ({
      inputs: this.sizes[k],
      outputs: this.sizes[k + 1],
      activation: k < L - 1 ? 'relu' : 'linear',
      weights: Array.from(w),
      bias: Array.from(p.b[k]),
    }));
  }
}
