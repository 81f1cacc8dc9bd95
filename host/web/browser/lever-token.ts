// Browser stand-in for host/operations/lever-token.ts in the preview bundle: lever tokens are signed
// with the service's secret (kept in its DATA_DIR), so a preview lever carries an unsigned marker.
export type LeverDirection = 'increase' | 'decrease' | 'to_one_of';

export const UNSIGNED_LEVER_TOKEN = 'preview-unsigned';

export function signLeverToken(): string {
  return UNSIGNED_LEVER_TOKEN;
}

export function verifyLeverToken(): never {
  throw new Error('lever tokens are verified by the service only');
}
