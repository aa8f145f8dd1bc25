// Each row's entropy in nats, from the engine's head statistics (the rows sent as the
// "heads" of one (rows, 1, N) map): the chapter's measure of how sharp a row is.
import type { Engine } from 'transformer-playground';
import type { FloatTensor } from '../../../engine/messages';

export async function entropies(e: Engine, rows: number[][]): Promise<number[]> {
  const N = rows[0]!.length;
  // A row of NaN (0/0 after renormalising) would stop the call: it is sent as 0s and shown as NaN by its sum.
  const map: FloatTensor = { data: Float32Array.from(rows.flat(), (v) => (Number.isNaN(v) ? 0 : v)), dims: [rows.length, 1, N] };
  const [st] = await e.headStats([map]);
  return rows.map((_, i) => st!.data[i * 4]!);
}
