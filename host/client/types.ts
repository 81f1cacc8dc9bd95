// The shapes of the replies the client reads (docs/reference/ask.md#response, tasks.md#pending). Only the
// fields a client acts on are typed; every reply may carry more (the whole reply is kept as sent).

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  field?: string;
  remedy?: string;
  doc_url?: string;
  [more: string]: unknown;
}

export interface Progress {
  stage?: string;
  frac?: number;
  fit?: number;
  of?: number;
  facts_so_far?: Record<string, unknown>;
}

export interface PendingReply {
  status: 'pending';
  task_id: string;
  retry_after_ms?: number;
  stage?: string;
  elapsed_ms?: number;
  progress?: Progress;
  watch_url?: string;
  [more: string]: unknown;
}

export interface Reason {
  feature_label: string;
  value?: unknown;
  likelihood_direction?: 'higher' | 'lower';
  strength?: 'strong' | 'moderate';
  range?: { text?: string };
}

export interface CaseResult {
  entity_id: string;
  state?: string;
  p?: number | Record<string, number>;
  p_display?: string | Record<string, string>;
  level?: string;
  choice?: string;
  position?: number;
  reasons?: Reason[];
  band?: string;
  says?: string;
  not_scoreable?: Record<string, unknown>;
}

export interface Answer {
  type: 'yesno' | 'score' | 'choice' | 'rank';
  state: 'answered' | 'refused' | 'not_yet';
  decision?: string;
  reasons?: string[];
  retry?: string;
  needs?: Record<string, unknown>;
  have?: Record<string, unknown>;
  model_ref?: string;
  cache?: string;
  quality?: Record<string, unknown> & { auc?: number; held_out_rows?: number; base_rate?: number };
  cases?: CaseResult[];
  ranked?: CaseResult[];
  ranked_total?: number;
  verdicts?: Array<{ verdict: Record<string, unknown>; signature: Record<string, unknown> }>;
  [more: string]: unknown;
}

export interface AskReply {
  status: 'done';
  answers: Record<string, Answer>;
  dataset_id?: string;
  fits_run?: number;
  billable_decisions?: number;
  [more: string]: unknown;
}

export type Reply = AskReply | PendingReply | ({ status: string } & Record<string, unknown>);
