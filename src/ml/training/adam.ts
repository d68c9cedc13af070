// Adam (Kingma & Ba 2015) with an L2 penalty added to the gradient of penalised parameters.
//
// The bias corrections 1 - beta^t use running products of beta, not Math.pow(beta, t). Node 20's
// Math.pow is V8's own fdlibm port (the same bits on every x86-64 CPU), but newer V8 builds can
// route Math.pow to the C library's pow, and glibc's x86-64 pow picks an FMA or a non-FMA code
// path by CPU. A product of IEEE multiplications is correctly rounded on every machine, so
// training never depends on which libm a Node build uses.

/** One group of parameters with its gradient, and the L2 penalty that applies to it. */
export interface ParamGroup {
  params: Float64Array;
  grads: Float64Array;
  l2: number;
}

export class Adam {
  readonly beta1 = 0.9;
  readonly beta2 = 0.999;
  readonly eps = 1e-8;
  private readonly groups: ParamGroup[];
  private readonly m: Float64Array[];
  private readonly v: Float64Array[];
  /** beta1^t and beta2^t after t steps. */
  private beta1Power = 1;
  private beta2Power = 1;
  private steps = 0;

  constructor(groups: ParamGroup[]) {
    this.groups = groups;
    this.m = groups.map((g) => new Float64Array(g.params.length));
    this.v = groups.map((g) => new Float64Array(g.params.length));
  }

  get stepCount(): number {
    return this.steps;
  }

  /** One step with learning rate `lr` on the gradients, which hold a sum over `count` samples. */
  step(lr: number, count: number): void {
    const b1 = this.beta1,
      b2 = this.beta2,
      eps = this.eps;
    this.steps++;
    this.beta1Power *= b1;
    this.beta2Power *= b2;
    const c1 = 1 - this.beta1Power,
      c2 = 1 - this.beta2Power;
    const inv = 1 / count;
    for (let k = 0; k < this.groups.length; k++) {
      const { params: p, grads: g, l2 } = this.groups[k];
      const m = this.m[k],
        v = this.v[k];
      for (let i = 0; i < p.length; i++) {
        const gi = g[i] * inv + l2 * p[i];
        m[i] = b1 * m[i] + (1 - b1) * gi;
        v[i] = b2 * v[i] + (1 - b2) * gi * gi;
        p[i] -= (lr * (m[i] / c1)) / (Math.sqrt(v[i] / c2) + eps);
      }
    }
  }
}
