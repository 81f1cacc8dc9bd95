// The watch page (spec 2.13): reads /v1/watch/<token>/events with EventSource (no key; it reconnects with
// Last-Event-ID by itself) and shows each stage's message, the share done and the facts so far.
const token = location.pathname.split('/').pop();
const byId = (id) => document.getElementById(id);
const say = (text) => (byId('status').textContent = text);
const line = (text) => {
  const li = document.createElement('li');
  li.textContent = text;
  byId('log').append(li);
};
const source = new EventSource(`/v1/watch/${encodeURIComponent(token)}/events`);
source.addEventListener('stage', (e) => {
  const d = JSON.parse(e.data);
  say(d.message);
  line(`${(d.elapsed_ms / 1000).toFixed(1)} s: ${d.message}`);
  if (typeof d.frac === 'number') byId('frac').value = d.frac;
  const facts = byId('facts');
  facts.replaceChildren(
    ...Object.entries(d.facts ?? {}).map(([k, v]) => {
      const li = document.createElement('li');
      li.textContent = `${k.replaceAll('_', ' ')}: ${v}`;
      return li;
    }),
  );
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
