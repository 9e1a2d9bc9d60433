// The history view: how questions ended per server and tool, and when people answered against the TTL they had.
import { api, duration, el } from './api.js';

const SVG = 'http://www.w3.org/2000/svg';
const BINS = 10;

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) if (value !== undefined) node.setAttribute(name, String(value));
  for (const child of children.flat()) if (child) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

function pct(x) {
  return `${Math.round(x * 100)}%`;
}

/** One row's answers as a histogram over 0..TTL in tenths, and the expired ones as a bar past the deadline. */
function binsOf(row) {
  const bins = { accept: Array(BINS).fill(0), decline: Array(BINS).fill(0), cancel: Array(BINS).fill(0) };
  let placed = 0;
  for (const answer of row.answers) {
    const ttl = answer.ttlMs ?? row.ttlMs;
    if (!ttl) continue;
    const bin = Math.min(BINS - 1, Math.floor((answer.afterMs / ttl) * BINS));
    bins[answer.action][bin] += 1;
    placed += 1;
  }
  return { bins, placed };
}

const ACTIONS = [
  { key: 'accept', label: 'accepted', className: 'bar-accept' },
  { key: 'decline', label: 'declined', className: 'bar-decline' },
  { key: 'cancel', label: 'cancelled', className: 'bar-cancel' },
];

/** The chart: one small histogram per server and tool, all on the same 0..TTL scale. */
function chart(rows) {
  const width = 860;
  const rowHeight = 64;
  const left = 170;
  const plot = width - left - 120;
  const charted = rows.filter((r) => r.answers.length || r.expired);
  const height = charted.length * rowHeight + 40;
  const tallest = (r) => {
    const { bins } = binsOf(r);
    return Math.max(r.expired, ...bins.accept.map((n, i) => n + bins.decline[i] + bins.cancel[i]));
  };
  const most = Math.max(1, ...charted.map(tallest));
  const id = 'history-chart';
  const summary = charted
    .map(
      (r) =>
        `${r.server}.${r.tool}: ${r.answers.length} answered, median ${r.p50Ms !== undefined ? duration(r.p50Ms) : 'n/a'} of a ${r.ttlMs ? duration(r.ttlMs) : 'unknown'} TTL, ${r.expired} expired`,
    )
    .join('; ');
  const parts = [
    svg('title', { id: `${id}-title` }, 'When questions were answered, as a share of their TTL'),
    svg('desc', { id: `${id}-desc` }, summary || 'No answers in this period.'),
  ];
  const x = (fraction) => left + fraction * plot;
  charted.forEach((row, index) => {
    const top = 10 + index * rowHeight;
    const base = top + rowHeight - 22;
    const { bins } = binsOf(row);
    const scale = (n) => (n / most) * (rowHeight - 30);
    parts.push(
      svg('text', { x: left - 10, y: base - 18, class: 'row-label', 'text-anchor': 'end' }, `${row.server}.${row.tool}`),
    );
    parts.push(
      svg(
        'text',
        { x: left - 10, y: base - 2, class: 'row-sub', 'text-anchor': 'end' },
        `TTL ${row.ttlMs ? duration(row.ttlMs) : '?'}`,
      ),
    );
    parts.push(svg('line', { x1: x(0), x2: x(1), y1: base, y2: base, class: 'axis' }));
    for (let bin = 0; bin < BINS; bin++) {
      let stacked = 0;
      for (const action of ACTIONS) {
        const n = bins[action.key][bin];
        if (!n) continue;
        const h = scale(n);
        parts.push(
          svg(
            'rect',
            { x: x(bin / BINS) + 1, y: base - stacked - h, width: plot / BINS - 2, height: h, class: action.className },
            svg('title', {}, `${n} ${action.label} at ${pct(bin / BINS)}–${pct((bin + 1) / BINS)} of the TTL`),
          ),
        );
        stacked += h;
      }
    }
    // The deadline, and what ran into it.
    parts.push(svg('line', { x1: x(1), x2: x(1), y1: top + 4, y2: base + 4, class: 'deadline' }));
    if (row.expired) {
      const h = scale(row.expired);
      parts.push(
        svg(
          'rect',
          { x: x(1) + 6, y: base - h, width: 22, height: h, class: 'bar-expired' },
          svg('title', {}, `${row.expired} expired`),
        ),
      );
    }
    parts.push(svg('text', { x: x(1) + 34, y: base - 2, class: 'row-sub' }, row.expired ? `${row.expired} expired` : ''));
    if (row.p50Ms !== undefined && row.ttlMs) {
      const at = x(Math.min(1, row.p50Ms / row.ttlMs));
      parts.push(svg('line', { x1: at, x2: at, y1: top + 2, y2: base, class: 'median' }));
      // The label sits on the side away from the deadline.
      const late = row.p50Ms / row.ttlMs > 0.6;
      parts.push(
        svg(
          'text',
          { x: late ? at - 4 : at + 4, y: top + 10, class: 'median-label', 'text-anchor': late ? 'end' : 'start' },
          `median ${duration(row.p50Ms)}`,
        ),
      );
    }
  });
  const axisY = charted.length * rowHeight + 14;
  for (let tick = 0; tick <= 4; tick++) {
    parts.push(
      svg('text', { x: x(tick / 4), y: axisY, class: 'tick', 'text-anchor': 'middle' }, tick === 4 ? 'TTL' : pct(tick / 4)),
    );
  }
  parts.push(
    svg('text', { x: x(0.5), y: axisY + 16, class: 'tick', 'text-anchor': 'middle' }, 'time to answer, as a share of the TTL'),
  );
  return svg(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': `${id}-title ${id}-desc`, class: 'chart', id },
    parts,
  );
}

function table(rows) {
  const head = [
    'Server',
    'Tool',
    'Asked',
    'Accepted',
    'Declined',
    'Cancelled',
    'Expired',
    'Abandoned',
    'Open',
    'TTL',
    'Median',
    '90th pct',
  ];
  return el(
    'div',
    { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Counts per server and tool' },
    el(
      'table',
      {},
      el('caption', {}, 'How questions ended, per server and tool'),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          head.map((h) => el('th', { scope: 'col' }, h)),
        ),
      ),
      el(
        'tbody',
        {},
        rows.map((r) =>
          el(
            'tr',
            {},
            el('th', { scope: 'row' }, r.server),
            el('td', {}, r.tool),
            [r.asked, r.accepted, r.declined, r.cancelled, r.expired, r.abandoned, r.open].map((n) =>
              el('td', { class: 'num' }, String(n)),
            ),
            [r.ttlMs, r.p50Ms, r.p90Ms].map((ms) => el('td', { class: 'num' }, ms === undefined ? '–' : duration(ms))),
          ),
        ),
      ),
    ),
  );
}

function legend() {
  return el(
    'ul',
    { class: 'legend', 'aria-label': 'Chart legend' },
    ACTIONS.map((a) => el('li', {}, el('span', { class: `swatch ${a.className}`, 'aria-hidden': 'true' }), a.label)),
    el('li', {}, el('span', { class: 'swatch bar-expired', 'aria-hidden': 'true' }), 'expired (cancelled at the deadline)'),
  );
}

export async function showHistory(container, daysSelect) {
  const load = async () => {
    container.setAttribute('aria-busy', 'true');
    const { status, body } = await api(`/ui/api/history?days=${daysSelect.value}`);
    container.removeAttribute('aria-busy');
    if (status !== 200) {
      container.replaceChildren(el('p', { role: 'alert' }, body?.error?.message ?? `The daemon answered ${status}.`));
      return;
    }
    if (!body.rows.length) {
      container.replaceChildren(el('p', {}, 'No questions in this period.'));
      return;
    }
    container.replaceChildren(
      el('h3', {}, 'Time to answer against the TTL'),
      el(
        'p',
        { class: 'hint' },
        'Answers bunched at the left of a long TTL: the TTL could be shorter. Many expired: it is too short, or nobody is looking.',
      ),
      legend(),
      el('div', { class: 'chart-wrap' }, chart(body.rows)),
      table(body.rows),
    );
  };
  daysSelect.addEventListener('change', () => void load());
  await load();
}
