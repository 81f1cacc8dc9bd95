// docs/reference/README.md#conventions: the contract an answer and its Verdict name (`contract`), defined once for the service and the page;
// INTERFACE_VERSION is the same number as describe's interface_version, OpenAPI info.version and MCP's server version.
// Contract 1.1 (docs/decisions/README.md): the number is not in model_refs, fit keys or mapping_ids, and
// svc_verify checks a Verdict's signature and expiry, not its `contract`, so Verdicts signed under 1.0.0 stay valid.
export const INTERFACE_VERSION = '1.1.0';
export const CONTRACT = `outcome-question/${INTERFACE_VERSION}`;
