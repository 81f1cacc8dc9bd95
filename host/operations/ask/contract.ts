// Spec 9: the contract an answer and its Verdict name (`contract`), defined once for the service and the page.
export const CONTRACT = 'outcome-question/1.0.0';
