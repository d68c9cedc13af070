// Adam (Kingma & Ba 2015) with an L2 penalty added to the gradient of penalised parameters.

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
    const b1 = this.beta1, b2 = this.beta2, eps = this.eps;
    this.steps++;
    const c1 = 1 - Math.pow(b1, this.steps), c2 = 1 - Math.pow(b2, this.steps);
    const inv = 1 / count;
    for (let k = 0; k < this.groups.length; k++) {
      const { params: p, grads: g, l2 } = this.groups[k];
      const m = this.m[k], v = this.v[k];
      for (let i = 0; i < p.length; i++) {
        const gi = g[i] * inv + l2 * p[i];
        m[i] = b1 * m[i] + (1 - b1) * gi;
        v[i] = b2 * v[i] + (1 - b2) * gi * gi;
        p[i] -= (lr * (m[i] / c1)) / (Math.sqrt(v[i] / c2) + eps);
      }
    }
  }
}
