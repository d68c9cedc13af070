;; Forward pass of the MLP predictor in WebAssembly SIMD (f64x2), assembled into
;; dist/ml/mlp-simd.wasm by build.mjs (wabt); loaded by mlp-simd.ts, which writes the model into
;; this module's memory and describes it in the header below.
;;
;; Same arithmetic as MlpPredictor.run (model.ts), bit for bit: every output's sum starts at its
;; bias and adds weight * input in input order, each multiply and add rounded to double (wasm has
;; no implicit fused multiply-add), and the vector lanes hold *different outputs*, never parts of
;; one sum. So the two lanes of an f64x2 are two rows computed side by side, and eight outputs
;; are four independent chains of adds (the CPU overlaps them; one chain waits on add latency).
;;
;; Memory (byte offsets; every array 16-byte aligned, padded with zeros to an even length):
;;   0  i32 nIn          features
;;   4  i32 nLayers
;;   8  i32 mean         offset of normalization.mean
;;   12 i32 invStd       offset of 1 / normalization.std
;;   16 i32 bufA         activations, ping
;;   20 i32 bufB         activations, pong
;;   24 i32 layers       offset of the layer table: per layer 5 x i32 = inputs, outputs rounded
;;                       up to even (nOut), relu (1) or linear (0), weights offset, bias offset.
;;                       Weights are transposed: input i's weights for outputs 0..nOut-1 are
;;                       contiguous (w + 8 * (i * nOut + o)), so one v128 load is two rows' weights.
;;   32 f64 clip, 40 f64 scale, 48 f64 offset
;;   56 f64 result       scale * net(x') + offset, written by $run
;;   64 f64[] x          the raw feature vector, written by the caller before each $run
(module
  (memory (export "memory") 1)

  (func (export "run")
    (local $k i32) (local $end i32) (local $mean i32) (local $inv i32)
    (local $src i32) (local $dst i32) (local $t i32)
    (local $layer i32) (local $lastLayer i32)
    (local $nIn i32) (local $nOut i32) (local $relu i32) (local $w i32) (local $b i32)
    (local $o i32) (local $stride i32) (local $wp i32) (local $xp i32) (local $xend i32)
    (local $clip v128) (local $nclip v128) (local $z v128) (local $zero v128) (local $xv v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)

    ;; x' = clamp((x - mean) * invStd, -clip, clip), NaN -> 0, into bufA (pairs; the pad lane is 0)
    (local.set $mean (i32.load (i32.const 8)))
    (local.set $inv (i32.load (i32.const 12)))
    (local.set $src (i32.load (i32.const 16)))
    (local.set $dst (i32.load (i32.const 20)))
    (local.set $clip (f64x2.splat (f64.load (i32.const 32))))
    (local.set $nclip (f64x2.neg (local.get $clip)))
    (local.set $end (i32.shl (i32.load (i32.const 0)) (i32.const 3)))
    (local.set $k (i32.const 0))
    (loop $norm
      (local.set $z
        (f64x2.mul
          (f64x2.sub (v128.load offset=64 (local.get $k)) (v128.load (i32.add (local.get $mean) (local.get $k))))
          (v128.load (i32.add (local.get $inv) (local.get $k)))))
      ;; as the scalar code: z > clip -> clip, else z < -clip -> -clip, else NaN -> 0
      (local.set $z
        (v128.bitselect
          (local.get $nclip)
          (v128.bitselect (local.get $clip) (local.get $z) (f64x2.gt (local.get $z) (local.get $clip)))
          (f64x2.lt (local.get $z) (local.get $nclip))))
      (local.set $z (v128.and (local.get $z) (f64x2.eq (local.get $z) (local.get $z))))
      (v128.store (i32.add (local.get $src) (local.get $k)) (local.get $z))
      (br_if $norm (i32.lt_u (local.tee $k (i32.add (local.get $k) (i32.const 16))) (local.get $end))))

    (local.set $zero (v128.const f64x2 0 0))
    (local.set $layer (i32.load (i32.const 24)))
    (local.set $lastLayer (i32.add (local.get $layer) (i32.mul (i32.load (i32.const 4)) (i32.const 20))))
    (loop $layers
      (local.set $nIn (i32.load offset=0 (local.get $layer)))
      (local.set $nOut (i32.load offset=4 (local.get $layer)))
      (local.set $relu (i32.load offset=8 (local.get $layer)))
      (local.set $w (i32.load offset=12 (local.get $layer)))
      (local.set $b (i32.load offset=16 (local.get $layer)))
      (local.set $stride (i32.shl (local.get $nOut) (i32.const 3)))
      (local.set $xend (i32.add (local.get $src) (i32.shl (local.get $nIn) (i32.const 3))))
      (local.set $o (i32.const 0)) ;; byte offset of the first output of the block

      ;; Eight outputs at a time: four f64x2 sums. Not sixteen (eight sums): with the eight weight
      ;; vectors TurboFan loads ahead that needs 17 xmm registers, and the spilled sum's chain then
      ;; runs through the stack (one run, load 4: 136 ns per prediction with sixteen, 96 with eight).
      (block $done8
        (loop $block8
          (br_if $done8 (i32.gt_u (i32.add (local.get $o) (i32.const 64)) (local.get $stride)))
          (local.set $t (i32.add (local.get $b) (local.get $o)))
          (local.set $a0 (v128.load offset=0 (local.get $t)))
          (local.set $a1 (v128.load offset=16 (local.get $t)))
          (local.set $a2 (v128.load offset=32 (local.get $t)))
          (local.set $a3 (v128.load offset=48 (local.get $t)))
          (local.set $wp (i32.add (local.get $w) (local.get $o)))
          (local.set $xp (local.get $src))
          (loop $inputs8
            (local.set $xv (v128.load64_splat (local.get $xp)))
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (v128.load offset=0 (local.get $wp)) (local.get $xv))))
            (local.set $a1 (f64x2.add (local.get $a1) (f64x2.mul (v128.load offset=16 (local.get $wp)) (local.get $xv))))
            (local.set $a2 (f64x2.add (local.get $a2) (f64x2.mul (v128.load offset=32 (local.get $wp)) (local.get $xv))))
            (local.set $a3 (f64x2.add (local.get $a3) (f64x2.mul (v128.load offset=48 (local.get $wp)) (local.get $xv))))
            (local.set $wp (i32.add (local.get $wp) (local.get $stride)))
            (br_if $inputs8 (i32.lt_u (local.tee $xp (i32.add (local.get $xp) (i32.const 8))) (local.get $xend))))
          ;; ReLU as the scalar `if (s < 0) s = 0`: pmax(s, 0) is `s < 0 ? 0 : s` (keeps NaN and -0)
          (if (local.get $relu)
            (then
              (local.set $a0 (f64x2.pmax (local.get $a0) (local.get $zero)))
              (local.set $a1 (f64x2.pmax (local.get $a1) (local.get $zero)))
              (local.set $a2 (f64x2.pmax (local.get $a2) (local.get $zero)))
              (local.set $a3 (f64x2.pmax (local.get $a3) (local.get $zero)))))
          (local.set $t (i32.add (local.get $dst) (local.get $o)))
          (v128.store offset=0 (local.get $t) (local.get $a0))
          (v128.store offset=16 (local.get $t) (local.get $a1))
          (v128.store offset=32 (local.get $t) (local.get $a2))
          (v128.store offset=48 (local.get $t) (local.get $a3))
          (local.set $o (i32.add (local.get $o) (i32.const 64)))
          (br $block8)))

      ;; The rest two outputs at a time (nOut is even); the output layer's one output is here.
      (block $done2
        (loop $block2
          (br_if $done2 (i32.ge_u (local.get $o) (local.get $stride)))
          (local.set $a0 (v128.load (i32.add (local.get $b) (local.get $o))))
          (local.set $wp (i32.add (local.get $w) (local.get $o)))
          (local.set $xp (local.get $src))
          (loop $inputs2
            (local.set $a0 (f64x2.add (local.get $a0) (f64x2.mul (v128.load (local.get $wp)) (v128.load64_splat (local.get $xp)))))
            (local.set $wp (i32.add (local.get $wp) (local.get $stride)))
            (br_if $inputs2 (i32.lt_u (local.tee $xp (i32.add (local.get $xp) (i32.const 8))) (local.get $xend))))
          (if (local.get $relu) (then (local.set $a0 (f64x2.pmax (local.get $a0) (local.get $zero)))))
          (v128.store (i32.add (local.get $dst) (local.get $o)) (local.get $a0))
          (local.set $o (i32.add (local.get $o) (i32.const 16)))
          (br $block2)))

      (local.set $t (local.get $src))
      (local.set $src (local.get $dst))
      (local.set $dst (local.get $t))
      (br_if $layers (i32.lt_u (local.tee $layer (i32.add (local.get $layer) (i32.const 20))) (local.get $lastLayer))))

    (f64.store (i32.const 56)
      (f64.add (f64.mul (f64.load (i32.const 40)) (f64.load (local.get $src))) (f64.load (i32.const 48))))))
