-- drop answers: replies are kept with idempotency records and tasks, drift reports on refit links
--
-- `answers` goes: a reply is kept with its idempotency record or its task, and nothing read it.

DROP INDEX answers_by_age;
DROP TABLE answers;
