// Validates a request body against its schema and turns the most relevant issue into one invalid_request error.
import * as v from 'valibot';
import { ServiceError } from '../errors.ts';

type Issue = v.BaseIssue<unknown>;

/** Issue types whose message we wrote ourselves (custom rules, unions and never-schemas with a message). */
const OWN_MESSAGE = new Set(['check', 'raw_check', 'partial_check', 'custom', 'never', 'union']);

/** The dotted path of an issue (`questions.q1.cuts`, `cases.ids.3`), or undefined at the top level. */
export function issueField(issue: Issue): string | undefined {
  if (!issue.path || issue.path.length === 0) return undefined;
  return issue.path.map((item) => String(item.key)).join('.');
}

/** A property the (strict) schema does not allow: valibot's key issue expecting `never`. */
function isUnknownProperty(issue: Issue): boolean {
  const last = issue.path?.at(-1);
  return issue.kind === 'schema' && issue.expected === 'never' && last !== undefined && 'origin' in last && last.origin === 'key';
}

/**
 * Picks the issue to report (docs/design/house-rules.md#rules: "the most relevant issue"). An unknown property comes first,
 * wherever it is: it is usually a misspelling (`datta` for `data`) or a field of another type or kind,
 * so it explains the other issues (`data` then reads as missing) and fixing it is the caller's next
 * step; among several, the first the schema meets. Otherwise the first issue in document order, but
 * when a union failed on one deeper field (an array option whose item 1 is wrong) that sub-issue
 * names the real culprit. When options disagree on where they failed (fixed tuples such as windows)
 * the union's own message is clearer. Sub-issue paths are relative to the union, so they are joined
 * onto the union's own path.
 */
export function mostRelevantIssue(issues: readonly [Issue, ...Issue[]]): Issue {
  let issue = issues.find(isUnknownProperty) ?? issues[0];
  while (issue.issues && issue.issues.length > 0) {
    const deeper = issue.issues.filter((sub) => (sub.path?.length ?? 0) > 0);
    if (deeper.length === 0) break;
    if (new Set(deeper.map((sub) => sub.path?.[0]?.key)).size > 1) break;
    const sub = deeper.reduce((a, b) => ((b.path?.length ?? 0) > (a.path?.length ?? 0) ? b : a));
    issue = { ...sub, path: [...(issue.path ?? []), ...(sub.path ?? [])] as Issue['path'] };
  }
  return issue;
}

const NOUNS: Record<string, string> = {
  Object: 'an object',
  Array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
};

function plural(n: unknown, word: string): string {
  if (n === 1) return `1 ${word}`;
  return `${String(n)} ${word === 'entry' ? 'entries' : `${word}s`}`;
}

/** For a field of a question or of the shape, says which type or kind it was judged against. */
function context(issue: Issue): string {
  const path = issue.path ?? [];
  const parent = path.at(-1)?.input as Record<string, unknown> | undefined;
  if (path.length >= 3 && path.at(-3)?.key === 'questions' && typeof parent?.type === 'string') {
    return ` on a ${parent.type} question`;
  }
  if (path.length >= 2 && path.at(-2)?.key === 'shape' && typeof parent?.kind === 'string') {
    return ` with shape kind ${parent.kind}`;
  }
  return '';
}

/** A sentence (without the field) saying what was wrong, worded the same way for every schema. */
export function describeIssue(issue: Issue): string {
  const req = (issue as { requirement?: unknown }).requirement;
  const unit = Array.isArray(issue.input) ? 'item' : 'character';
  if (OWN_MESSAGE.has(issue.type)) return issue.message;
  switch (issue.type) {
    case 'min_length':
      return `must have at least ${plural(req, unit)}, got ${lengthOf(issue.input)}`;
    case 'max_length':
      return `must have at most ${plural(req, unit)}, got ${lengthOf(issue.input)}`;
    case 'max_code_points':
      // common.ts maxChars: characters counted as code points, as JSON Schema's maxLength counts them
      return `must have at most ${plural(req, 'character')}, got ${issue.received}`;
    case 'min_entries':
      return `must have at least ${plural(req, 'entry')}`;
    case 'max_entries':
      return `must have at most ${plural(req, 'entry')}`;
    case 'min_value':
      return `must be at least ${String(req)}, got ${issue.received}`;
    case 'max_value':
      return `must be at most ${String(req)}, got ${issue.received}`;
    case 'gt_value':
      return `must be greater than ${String(req)}, got ${issue.received}`;
    case 'lt_value':
      return `must be less than ${String(req)}, got ${issue.received}`;
    case 'integer':
      return `must be an integer, got ${issue.received}`;
    case 'regex':
      // A pattern given with its own wording (valibot's default starts "Invalid format:") keeps it.
      if (!issue.message.startsWith('Invalid format:')) return `${issue.message}, got ${issue.received}`;
      return `must match the pattern ${(req as RegExp).source}, got ${issue.received}`;
    case 'url':
      return `must be an absolute URI, got ${issue.received}`;
  }
  if (issue.kind === 'schema') {
    if (isUnknownProperty(issue)) return `is not an allowed property${context(issue)}`;
    const choices = issue.type === 'picklist' || issue.type === 'variant' || issue.type === 'literal';
    if (issue.received === 'undefined') {
      return choices ? `is required (${oneOf(issue.expected)})` : `is required${context(issue)}`;
    }
    if (choices) return `must be ${oneOf(issue.expected)}, got ${issue.received}`;
    return `must be ${NOUNS[issue.expected ?? ''] ?? issue.expected}, got ${issue.received}`;
  }
  return issue.message;
}

function lengthOf(input: unknown): number | string {
  return typeof input === 'string' || Array.isArray(input) ? input.length : '?';
}

function oneOf(expected: string | null): string {
  const options = (expected ?? '').replace(/^\((.*)\)$/, '$1').split(' | ');
  return options.length > 1 ? `one of ${options.join(', ')}` : options[0];
}

/** The fix for one schema issue, named for its field (the code's own remedy is the same for every field). */
function remedyFor(field: string | undefined, what: string): string {
  const rule = what.replace(/, got .*$/s, '');
  const where = field ?? 'the body';
  const fix = /^is not an allowed property/.test(rule)
    ? `Remove ${where} (or check its spelling): it is not part of this request`
    : `Change ${where} so it ${rule.replace(/^is required/, 'is present')}`;
  return `${fix}. The request's schema is in GET /openapi.json; limits and question types are in POST /v1/describe.`;
}

/**
 * Parses `value` with `schema`; on failure throws ServiceError('invalid_request') whose `field` is the
 * dotted path of the most relevant issue and whose detail reads "<field>: <what was wrong>".
 */
export function parseBody<const TSchema extends v.GenericSchema>(schema: TSchema, value: unknown): v.InferOutput<TSchema> {
  // valibot treats arrays as objects; a request body must be a JSON object (docs/reference/README.md: JSON body).
  if (schema.expects === 'Object' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value;
    throw new ServiceError('invalid_request', `body: must be a JSON object, got ${got}`);
  }
  let result: v.SafeParseResult<TSchema>;
  try {
    result = v.safeParse(schema, value);
  } catch (err) {
    // No schema recurses past a fixed depth (`when` stops at LIMITS.whenDepthMax levels), so this is a
    // guard only: should a body still exhaust the stack, that is the caller's nesting, a 422, not a 500.
    if (err instanceof RangeError && /call stack/i.test(err.message)) {
      throw new ServiceError('invalid_request', 'body: is nested too deeply to validate', { cause: err });
    }
    throw err;
  }
  if (result.success) return result.output;
  const issue = mostRelevantIssue(result.issues as [Issue, ...Issue[]]);
  const field = issueField(issue);
  const what = describeIssue(issue);
  const detail = `${field ?? 'body'}: ${what}`;
  throw new ServiceError('invalid_request', detail, { ...(field === undefined ? {} : { field }), remedy: remedyFor(field, what) });
}
