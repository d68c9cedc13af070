// Session jobs and results cross Redis as base64 of the structured-clone format (node:v8), not
// JSON: a result holds NaN (no final mid), -0 and typed arrays that JSON would change, and the
// merged result must be byte-identical to a local run's.

import { deserialize, serialize } from 'node:v8';

export const encode = (v: unknown): string => serialize(v).toString('base64');
export const decode = <T>(s: string): T => deserialize(Buffer.from(s, 'base64')) as T;
