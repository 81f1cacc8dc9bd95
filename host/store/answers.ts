// Answers kept 24 hours (docs/reference/models.md#stored-answers, docs/reference/ask.md#large-answers: answer_url, export CSV, svc_page cursors) in parts of about
// 1 MiB, so neither writing nor streaming one ever holds it whole; and the namespaces' profiles (2.2).
import { toBytes, type SqlClient } from './sql.ts';
import type { AnswerStore, ProfileRecord, ProfileStore, StoredAnswer } from './types.ts';

interface StoredAnswerRow extends Omit<StoredAnswer, 'kind'> {
  kind: string;
}

function toStoredAnswer(r: StoredAnswerRow): StoredAnswer {
  return {
    workspace_id: r.workspace_id,
    id: r.id,
    kind: r.kind === 'csv' ? 'csv' : 'json',
    parts: Number(r.parts),
    byte_count: Number(r.byte_count),
    created_at: Number(r.created_at),
    expires_at: Number(r.expires_at),
  };
}

export function answerQueries(db: SqlClient): AnswerStore {
  return {
    async putStoredAnswerPart(p) {
      await db.run('INSERT INTO stored_answer_parts (answer_id, seq, content, expires_at) VALUES (?, ?, ?, ?)', [
        p.answer_id,
        p.seq,
        toBytes(p.content),
        p.expires_at,
      ]);
    },

    async finishStoredAnswer(a) {
      await db.run(
        'INSERT INTO stored_answers (workspace_id, id, kind, parts, byte_count, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [a.workspace_id, a.id, a.kind, a.parts, a.byte_count, a.created_at, a.expires_at],
      );
    },

    putStoredAnswer(a, parts) {
      return db.transaction(async (tx) => {
        for (let i = 0; i < parts.length; i++) {
          await tx.run('INSERT INTO stored_answer_parts (answer_id, seq, content, expires_at) VALUES (?, ?, ?, ?)', [
            a.id,
            i + 1,
            toBytes(parts[i]),
            a.expires_at,
          ]);
        }
        await tx.run(
          'INSERT INTO stored_answers (workspace_id, id, kind, parts, byte_count, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          [a.workspace_id, a.id, a.kind, a.parts, a.byte_count, a.created_at, a.expires_at],
        );
      });
    },

    async getStoredAnswer(workspace_id, id) {
      const r = await db.get<StoredAnswerRow>(
        'SELECT workspace_id, id, kind, parts, byte_count, created_at, expires_at FROM stored_answers WHERE workspace_id = ? AND id = ?',
        [workspace_id, id],
      );
      return r ? toStoredAnswer(r) : null;
    },

    async getStoredAnswerPart(answer_id, seq) {
      const r = await db.get<{ content: Uint8Array }>('SELECT content FROM stored_answer_parts WHERE answer_id = ? AND seq = ?', [
        answer_id,
        seq,
      ]);
      return r ? r.content : null;
    },
  };
}

export function profileQueries(db: SqlClient): ProfileStore {
  return {
    async getProfile(workspace_id, namespace) {
      const r = await db.get<ProfileRecord>(
        'SELECT workspace_id, namespace, body, hash, updated_at FROM profiles WHERE workspace_id = ? AND namespace = ?',
        [workspace_id, namespace],
      );
      return r ? { ...r, updated_at: Number(r.updated_at) } : null;
    },

    async putProfile(p) {
      await db.run(
        `INSERT INTO profiles (workspace_id, namespace, body, hash, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (workspace_id, namespace) DO UPDATE SET body = excluded.body, hash = excluded.hash, updated_at = excluded.updated_at`,
        [p.workspace_id, p.namespace, p.body, p.hash, p.updated_at],
      );
    },
  };
}
