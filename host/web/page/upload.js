// The upload page (docs/reference/datasets.md#formats): a plain CSV is gzipped here (CompressionStream), so its pieces may be cut
// anywhere; a gzip or Parquet file goes as it is. Pieces of at most 4,000,000 bytes go in order to
// /v1/uploads/<token>/<index> with one x-upload-session, then /complete; the service checks the file whole.
const PIECE = 4_000_000;
const MAX_CSV = 250_000_000;
const token = location.pathname.split('/').pop();
const base = `/v1/uploads/${encodeURIComponent(token)}`;
const byId = (id) => document.getElementById(id);
const say = (text) => (byId('status').textContent = text);

async function send(path, body, session, type) {
  const res = await fetch(`${base}/${path}`, { method: 'POST', headers: { 'content-type': type, 'x-upload-session': session }, body });
  const reply = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(`${reply.detail ?? `HTTP ${res.status}`} ${reply.remedy ?? ''}`);
  return reply;
}

async function bytesToSend(file) {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  const packed = (head[0] === 0x1f && head[1] === 0x8b) || String.fromCharCode(...head) === 'PAR1';
  if (packed) return file;
  if (file.size > MAX_CSV) throw new Error('This page takes a CSV of up to 250 MB; send a larger file in pieces from a program.');
  say('Compressing…');
  return new Response(file.stream().pipeThrough(new CompressionStream('gzip'))).blob();
}

byId('file').addEventListener('change', async () => {
  const file = byId('file').files[0];
  if (!file) return;
  const session = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
  try {
    const blob = await bytesToSend(file);
    const pieces = Math.max(1, Math.ceil(blob.size / PIECE));
    for (let i = 0; i < pieces; i++) {
      say(`Sending piece ${i + 1} of ${pieces}…`);
      await send(String(i), blob.slice(i * PIECE, (i + 1) * PIECE), session, 'application/octet-stream');
      byId('sent').value = (i + 1) / pieces;
    }
    say('Checking the file…');
    const done = await send('complete', JSON.stringify({ pieces }), session, 'application/json');
    say(`Stored: dataset ${done.dataset_id} is ${done.status}. Ask about it with that dataset_id.`);
  } catch (err) {
    say(`The upload failed: ${err.message}`);
  }
});
