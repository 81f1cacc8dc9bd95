// docs/decisions/0001-group-column.md group_column over real HTTP: a table of several rows per case is fitted with whole cases
// held out (a fit of its own, with its own model_ref), group_column = entity_column lets a case repeat, and
// every misuse is a problem naming group_column and the fix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { ordersTable } from '../../helpers/orders.ts';

let svc: TestService;
let key: string;

const rows = ordersTable(600, 4, 11);
const base = { data: { rows }, entity_column: 'order_id', subject_kind: 'org', cases: { ids: ['o1-0', 'o2-3'] } };
const ask = (body: Record<string, unknown>) => svc.post('/v1/ask', { ...base, ...body }, key);
const yesno = { q: { type: 'yesno', outcome_column: 'churned' } };

beforeAll(async () => {
  svc = await startTestService();
  key = await svc.liveKey('group-column');
});
afterAll(() => svc?.close());

describe('group_column', () => {
  it('fits with whole customers held out: its own fit and model_ref, the group column left out of the features as group', async () => {
    const grouped = await ask({ group_column: 'customer_id', questions: yesno });
    expect(grouped.status).toBe(200);
    const a = grouped.body.answers.q;
    expect(a.state).toBe('answered');
    expect(a.quality.excluded_columns).toContainEqual({ column: 'customer_id', why: 'group' });
    expect(a.cases.map((c: { entity_id: string }) => c.entity_id)).toEqual(['o1-0', 'o2-3']);

    const byOrder = await ask({ questions: yesno });
    expect(byOrder.status).toBe(200);
    expect(byOrder.body.answers.q.model_ref).not.toBe(a.model_ref);
    // the same ask again is the same fit (the group is part of the fit key, nothing else moves)
    const again = await ask({ group_column: 'customer_id', questions: yesno });
    expect(again.body.answers.q.model_ref).toBe(a.model_ref);
    expect(again.body.answers.q.cases[0].p).toBe(a.cases[0].p);
  });

  it('group_column = entity_column lets a table repeat its cases (the last row of each is answered); without it, 422 entity_not_an_id', async () => {
    const perCustomer = { entity_column: 'customer_id', cases: { ids: ['c1'] }, questions: yesno };
    const refused = await ask(perCustomer);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'entity_not_an_id', field: 'entity_column' });
    expect(refused.body.remedy).toMatch(/group_column/);

    const r = await ask({ ...perCustomer, group_column: 'customer_id' });
    expect(r.status).toBe(200);
    expect(r.body.answers.q.cases).toHaveLength(1);
    expect(r.body.answers.q.cases[0].entity_id).toBe('c1');
    // the entity column is the group: the same split as by entity, so no group in the fit key or excluded list
    expect(r.body.answers.q.quality.excluded_columns).not.toContainEqual(expect.objectContaining({ why: 'group' }));
  });

  it('a group_column the record lacks lists the columns and the closest name', async () => {
    const r = await ask({ group_column: 'customer', questions: yesno });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'group_column' });
    expect(r.body.detail).toContain('did you mean "customer_id"?');
  });

  it('the outcome column cannot be the group', async () => {
    const r = await ask({ group_column: 'churned', questions: yesno });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: 'invalid_request', field: 'questions.q.outcome_column' });
    expect(r.body.detail).toContain('is the group_column');
  });

  it('group_column is for tables and is not the time column', async () => {
    const shaped = await ask({
      group_column: 'customer_id',
      time_column: 'ordered_on',
      shape: {
        kind: 'events',
        event_column: 'segment',
        label: { name: 'churned', when: { column: 'segment', op: '==', value: 'a' } },
        as_of: '2026-12-31',
      },
      questions: yesno,
    });
    expect(shaped.status).toBe(422);
    expect(shaped.body.field).toBe('group_column');
    expect(shaped.body.detail).toMatch(/table records only/);
    const timed = await ask({ group_column: 'ordered_on', time_column: 'ordered_on', questions: yesno });
    expect(timed.status).toBe(422);
    expect(timed.body).toMatchObject({ code: 'invalid_request', field: 'group_column' });
  });
});
