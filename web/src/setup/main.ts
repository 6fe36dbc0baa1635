// The /setup page of `touchmove run --setup`: the board check in a browser.
// It follows the check's state over SSE (/api/setup/events, one JSON view
// per change, see src/outputs/setup.rs) and answers with POST
// /api/setup/answer. The board is drawn as a plain 8×8 grid: a filled
// square reads a piece, a ringed one has been walked.
import './style.css';

interface View {
  profile: string;
  step: string;
  title: string;
  prompt: string;
  message: string | null;
  occupied: string[];
  walked: string[];
  findings: string[];
  done: boolean;
  ready: boolean | null;
  result: string[];
  written: string | null;
}

const FILES = 'abcdefgh';
const el = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`#${id} is missing from setup.html`);
  return found as T;
};

const board = el<HTMLDivElement>('board');
const cells = new Map<string, HTMLDivElement>();
for (let rank = 8; rank >= 1; rank--) {
  const row = document.createElement('div');
  row.className = 'rank';
  row.setAttribute('role', 'row');
  for (const file of FILES) {
    const name = `${file}${rank}`;
    const cell = document.createElement('div');
    cell.className = `square ${(FILES.indexOf(file) + rank) % 2 === 0 ? 'light' : 'dark'}`;
    cell.dataset.square = name;
    cell.setAttribute('role', 'gridcell');
    cell.setAttribute('aria-label', `${name} empty`);
    cells.set(name, cell);
    row.append(cell);
  }
  board.append(row);
}

const list = (ul: HTMLElement, lines: string[]) => {
  ul.replaceChildren(
    ...lines.map(line => {
      const li = document.createElement('li');
      li.textContent = line;
      return li;
    }),
  );
};

const show = (view: View) => {
  el('profile').textContent = `: ${view.profile}`;
  el('title').textContent = view.title;
  el('prompt').textContent = view.prompt;
  const message = el('message');
  message.hidden = !view.message;
  message.textContent = view.message ?? '';
  const occupied = new Set(view.occupied);
  const walked = new Set(view.walked);
  for (const [name, cell] of cells) {
    const on = occupied.has(name);
    cell.classList.toggle('occupied', on);
    cell.classList.toggle('walked', walked.has(name));
    cell.setAttribute('aria-label', `${name} ${on ? 'reads a piece' : 'empty'}${walked.has(name) ? ', walked' : ''}`);
  }
  list(el('findings'), view.findings);
  const waiting = ['lift-white-queen', 'lift-black-queen', 'put-back'].includes(view.step);
  el<HTMLButtonElement>('next').hidden = view.done || waiting;
  el<HTMLButtonElement>('next').textContent = view.step === 'walk' ? 'Finished the walk' : 'Done';
  el<HTMLButtonElement>('skip').hidden = view.done || view.step === 'empty-board';
  el('result').hidden = !view.done;
  if (view.done) {
    el('verdict').textContent = view.ready ? 'The board is ready' : 'Faults to fix';
    list(el('result-lines'), view.result);
  }
};

const answer = async (what: 'next' | 'skip') => {
  const res = await fetch('api/setup/answer', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ answer: what }),
  });
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    const message = el('message');
    message.hidden = false;
    message.textContent = body.error ?? `the answer was refused (${res.status})`;
  }
};

el('next').addEventListener('click', () => void answer('next'));
el('skip').addEventListener('click', () => void answer('skip'));

const connect = () => {
  const source = new EventSource('api/setup/events');
  source.onmessage = event => {
    el('connection').hidden = true;
    show(JSON.parse(event.data) as View);
  };
  source.onerror = () => {
    el('connection').hidden = false;
  };
};
connect();
document.body.dataset.ready = 'true';
