// register_agent's reply (it reads no body).
import * as v from 'valibot';

/** docs/reference/auth.md#test-keys: 201 with a test key shown once. */
export const RegisterResponseSchema = v.looseObject({
  api_key: v.string(),
  mode: v.literal('test'),
  note: v.optional(v.string()),
});

export type RegisterResponse = v.InferOutput<typeof RegisterResponseSchema>;
