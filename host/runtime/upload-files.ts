// Where upload bodies wait on this node's disk while they arrive (datasets/upload-dataset.ts writes them,
// the sweeper clears what a killed process left), and how a file's name tells which process it belongs to.
import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';

/** Where bodies wait while they arrive; the sweeper clears leftovers of crashed processes. */
export const UPLOAD_DIR = 'uploads';

// A body's file names the process receiving it (host, pid and a tag of this process), so the sweeper can
// tell the file of a process that was killed mid-upload at once, instead of waiting for its age.
const HOST_TAG = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
const PROCESS_TAG = randomBytes(4).toString('hex');
const FILE_NAME = /^(ds_[0-9a-z]+)\.([0-9a-f]{8})-(\d+)-([0-9a-f]{8})\.[0-9a-f]+\.part$/;

export function uploadFileName(datasetId: string): string {
  return `${datasetId}.${HOST_TAG}-${process.pid}-${PROCESS_TAG}.${randomBytes(6).toString('hex')}.part`;
}

/**
 * Whether an upload file was left by a process of this host that is gone (killed mid-upload), or by an
 * earlier process that had this one's pid. Files of other hosts, and names of another form, are judged by
 * age alone (the sweeper's rule).
 */
export function isOrphanUpload(name: string): boolean {
  const m = FILE_NAME.exec(name);
  if (!m || m[2] !== HOST_TAG) return false;
  const pid = Number(m[3]);
  if (pid === process.pid) return m[4] !== PROCESS_TAG;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    // EPERM: the pid lives, under another user: not ours to judge.
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
