// The watch page (docs/reference/tasks.md#watch): reads GET /v1/watch/<token> (no key). A task's link then follows
// /v1/watch/<token>/events with EventSource (it reconnects with Last-Event-ID by itself) and shows each stage's
// message, the share done and the facts so far; a model's link shows its calibration and latest drift, read
// again every minute while the page is open.
const token = location.pathname.split('/').pop();
const byId = (id) => document.getElementById(id);
const say = (text) => (byId('status').textContent = text);
/** What the page shows, for people's tools and tests: task, model or error. */
const showing = (what) => (document.body.dataset.status = what);
const el = (tag, text) => {
  const e = document.createElement(tag);
  e.textContent = text;
  return e;
};
const line = (text) => byId('log').append(el('li', text));
const pct = (x) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(1)}%`);

function watchTask() {
  byId('title').textContent = 'Watching a fit';
  byId('lead').textContent = 'This page follows one task of the service as it runs. The answer itself goes to whoever asked.';
  byId('task').hidden = false;
  showing('task');
  const source = new EventSource(`/v1/watch/${encodeURIComponent(token)}/events`);
  source.addEventListener('stage', (e) => {
    const d = JSON.parse(e.data);
    say(d.message);
    line(`${(d.elapsed_ms / 1000).toFixed(1)} s: ${d.message}`);
    if (typeof d.frac === 'number') byId('frac').value = d.frac;
    byId('facts').replaceChildren(...Object.entries(d.facts ?? {}).map(([k, v]) => el('li', `${k.replaceAll('_', ' ')}: ${v}`)));
  });
  source.addEventListener('answer', (e) => {
    const d = JSON.parse(e.data);
    line(`${d.question}: ${d.state}${d.reasons ? ` (${d.reasons.join(', ')})` : ''}`);
  });
  source.addEventListener('done', () => {
    byId('frac').value = 1;
    say('Done: the answer went to whoever asked.');
    source.close();
  });
  source.addEventListener('error', (e) => {
    if (e.data) {
      const d = JSON.parse(e.data);
      say(`The task failed: ${d.detail} ${d.remedy}`);
      source.close();
    } else if (source.readyState === EventSource.CLOSED) {
      say('This link is not (or no longer) valid: watch links work for 24 hours.');
    }
  });
}

/** "1 call", "2 calls". */
function counted(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function showModel(v) {
  byId('title').textContent = 'Calibration and drift of a model';
  byId('lead').textContent =
    `Model ${v.model_ref}${v.namespace ? ` (namespace ${v.namespace})` : ''}: how its calls matched the outcomes reported, and how its latest refit compared.`;
  byId('model').hidden = false;
  const t = v.track_record;
  const o = t.overall;
  byId('overall').textContent =
    `${counted(o.calls, 'call')} paired with outcomes, ${o.happened} happened: observed ${pct(o.observed_rate)} against a mean chance of ${pct(o.mean_chance)}` +
    `${o.small_n ? ' (fewer than 100 calls: read with care)' : ''}. ${counted(t.answers_kept, 'answer')} kept; ` +
    `${counted(t.outcomes_without_an_earlier_answer, 'outcome')} without an earlier answer.`;
  byId('by-chance')
    .querySelector('tbody')
    .replaceChildren(
      ...t.by_chance.map((r) => {
        const tr = document.createElement('tr');
        tr.dataset.range = r.range;
        const interval = r.interval_95 ? `${pct(r.interval_95[0])} – ${pct(r.interval_95[1])}` : '–';
        tr.append(
          el('td', r.range),
          el('td', String(r.calls)),
          el('td', String(r.happened)),
          el('td', pct(r.observed_rate)),
          el('td', interval),
          el('td', pct(r.mean_chance)),
        );
        return tr;
      }),
    );
  const d = v.drift;
  const rows = d
    ? [
        ['Pattern', d.pattern],
        ['Recommendation', d.recommendation],
        ['Refit quality', d.refit_quality],
        ['Model to serve', d.keep_model_ref ?? '–'],
        ['Note', d.note ?? '–'],
        ['Basis', d.report?.basis ?? '–'],
      ]
    : [['Drift', v.drift_note ?? 'not recorded']];
  byId('drift').replaceChildren(...rows.flatMap(([k, val]) => [el('dt', k), el('dd', String(val))]));
  byId('expires').textContent = `Read at ${v.read_at}. This link works until ${v.expires_at}.`;
  say('');
  showing('model');
}

async function read() {
  let res;
  try {
    res = await fetch(`/v1/watch/${encodeURIComponent(token)}`);
  } catch {
    say('The service cannot be reached; trying again in a minute.');
    return null;
  }
  const body = await res.json();
  if (!res.ok) {
    byId('model').hidden = true;
    showing('error');
    say(res.status === 410 ? `This link has expired: ${body.detail}` : `This link is not valid: ${body.detail}`);
    return 'stop';
  }
  return body;
}

const first = await read();
if (first && first !== 'stop') {
  if (first.kind === 'task') watchTask();
  else {
    showModel(first);
    const timer = setInterval(async () => {
      const v = await read();
      if (v === 'stop') clearInterval(timer);
      else if (v) showModel(v);
    }, 60_000);
  }
}
