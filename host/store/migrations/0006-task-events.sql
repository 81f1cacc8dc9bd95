-- task events
--
-- `task_events`: the events of a task's stream (spec 2.12), numbered per task, written by the node
-- running the task and read by any node serving the stream.

CREATE TABLE task_events (
  task_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  data TEXT NOT NULL,
  at BIGINT NOT NULL,
  PRIMARY KEY (task_id, seq)
);
