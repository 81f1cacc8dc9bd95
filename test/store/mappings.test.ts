// The mappings of svc_map (docs/reference/map.md#map, migration 100): kept per workspace and namespace, the same id kept
// once, listed oldest first. Both dialects.
import { expect, it } from 'vitest';
import { describeStores, T0 } from './helpers.ts';

describeStores('mappings', ({ openStore }) => {
  it('keeps a mapping per workspace and namespace, the same id once, and lists a namespace oldest first', async () => {
    const store = await openStore();
    const m = (id: string, ns: string, at: number, request = `{"id":"${id}"}`) => ({
      workspace_id: 'ws_1',
      namespace: ns,
      mapping_id: id,
      request,
      created_at: at,
    });
    expect(await store.getMapping('ws_1', '', 'mp_aaaaa')).toBeNull();
    await store.putMapping(m('mp_bbbbb', '', T0 + 2));
    await store.putMapping(m('mp_aaaaa', '', T0 + 1));
    // the same id again keeps the first
    await store.putMapping(m('mp_aaaaa', '', T0 + 5, '{"other":true}'));
    await store.putMapping(m('mp_aaaaa', 'acme', T0 + 3));
    expect(await store.getMapping('ws_1', '', 'mp_aaaaa')).toEqual(m('mp_aaaaa', '', T0 + 1));
    expect(await store.getMapping('ws_1', 'acme', 'mp_aaaaa')).toEqual(m('mp_aaaaa', 'acme', T0 + 3));
    expect(await store.getMapping('ws_2', '', 'mp_aaaaa')).toBeNull();
    expect(await store.getMapping('ws_1', 'globex', 'mp_aaaaa')).toBeNull();
    expect((await store.listMappings('ws_1', '')).map((x) => x.mapping_id)).toEqual(['mp_aaaaa', 'mp_bbbbb']);
    expect(await store.listMappings('ws_2', '')).toEqual([]);
  });
});
