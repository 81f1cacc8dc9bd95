// Public surface of signing/, the project's only home for jose (docs/design/house-rules.md#rules: one home per library).
export { canonicalJson } from './canonical-json.ts';
export {
  KeyRing,
  MemorySigningKeyStore,
  type Jwks,
  type KeyRingOptions,
  type PublicJwk,
  type SigningKeyStore,
  type StoredSigningKey,
} from './key-ring.ts';
export {
  newVerdictId,
  signVerdict,
  signedPiecesOf,
  signedTextOf,
  verifyVerdict,
  type VerdictSignature,
  type VerifyStatus,
} from './verdict.ts';
export { AccessTokenVerifier, KeysUnavailable, TokenRejected, looksLikeJwt, type TokenCheck, type VerifiedToken } from './oauth.ts';
export { discoveryUrlOf } from './issuer-keys.ts';
export { ASYMMETRIC_ALGORITHMS, OAuthConfigError, parseOAuthIssuers, type TrustedIssuer } from './oauth-config.ts';
