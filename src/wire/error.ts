// The body of every error response: { "error": { "code", "message", "fields"? } }.

import { z } from 'zod';

/** Machine-readable codes, one per failure kind. */
export const ERROR_CODES = [
  'invalid_json',
  'invalid_request',
  'unsupported_media_type',
  'payload_too_large',
  'not_found',
  'unknown_symbol',
  'method_not_allowed',
  'unauthorized',
  'invalid_host',
  'rate_limited',
  'busy',
  'too_many_clients',
  'conflict',
  'shutting_down',
  'cancelled',
  'backtest_failed',
  'storage_error',
  'idempotency_key_mismatch',
  'internal_error',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const fieldErrorSchema = z
  .object({
    field: z.string().describe('field name (dotted path), "(body)" for the whole body'),
    message: z.string().describe('what was expected'),
  })
  .describe('One invalid field.');
export type FieldError = z.infer<typeof fieldErrorSchema>;

export const errorBodySchema = z
  .object({
    error: z
      .object({
        code: z.enum(ERROR_CODES).describe('machine-readable code'),
        message: z.string().describe('human-readable message'),
        fields: z.array(fieldErrorSchema).optional().describe('invalid fields (400 only)'),
      })
      .describe('The error.'),
  })
  .describe('Error response.');
export type ErrorBody = z.infer<typeof errorBodySchema>;
