// The shared pieces of request and reply validation: common fields, shapes, questions, the ask request
// (the preview page validates asks too), Verdicts, problems, profiles, and parsing. Each operation's own
// request and reply schemas sit beside it (operations/<resource>/<operation>.schema.ts), named on its
// table entry (Operation.request and .response).
export * from './common.ts';
export * from './shape.ts';
export * from './question.ts';
export * from './ask.ts';
export * from './verdict.ts';
export * from './problem.ts';
export * from './profile.ts';
export { parseBody, issueField, describeIssue, mostRelevantIssue } from './parse.ts';
