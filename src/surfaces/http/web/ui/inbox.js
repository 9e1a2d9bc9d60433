// The web inbox: waiting questions, live from the daemon's event stream, and a form to answer each.
import { api, duration, el, signIn } from './api.js';
import { buildFields, collect, showIssue } from './form.js';
import { showHistory } from './history.js';

const $ = (id) => document.getElementById(id);
const questions = new Map(); // id -> { q, row }
let openId;
let openFields = [];

function setLive(text) {
  $('live').textContent = text;
}

function timeLeft(q) {
  const left = q.expiresAt - Date.now();
  return left > 0 ? `${duration(left)} left` : 'expiring';
}

function short(session) {
  return session.length > 14 ? `${session.slice(0, 12)}…` : session;
}

function renderCount() {
  const n = questions.size;
  $('count').textContent = String(n);
  $('empty').hidden = n > 0;
  document.title = n ? `(${n}) mcpx inbox` : 'mcpx inbox';
}

function addQuestion(q) {
  if (q.state !== 'pending' || questions.has(q.id)) return;
  const left = el('span', { class: 'left', 'data-expires': q.expiresAt }, timeLeft(q));
  const row = el(
    'li',
    { class: 'question', 'data-id': q.id },
    el(
      'button',
      { type: 'button', class: 'open', 'aria-controls': 'detail', onclick: () => openQuestion(q.id) },
      el('span', { class: 'where' }, el('span', { class: 'server' }, q.server), '.', el('span', { class: 'tool' }, q.tool)),
      left,
      el('span', { class: 'message' }, q.message),
      el(
        'span',
        { class: 'meta' },
        q.mode === 'url' ? 'link · ' : '',
        'session ',
        el('span', { class: 'session', title: q.session }, short(q.session)),
      ),
    ),
  );
  questions.set(q.id, { q, row });
  // Soonest deadline first.
  const later = [...$('questions').children].find((li) => questions.get(li.dataset.id)?.q.expiresAt > q.expiresAt);
  $('questions').insertBefore(row, later ?? null);
  renderCount();
}

function removeQuestion(id, why) {
  const entry = questions.get(id);
  if (!entry) return;
  entry.row.remove();
  questions.delete(id);
  renderCount();
  if (openId === id && why) finish(why);
}

function finish(text) {
  $('detail-status').textContent = text;
  for (const button of $('detail').querySelectorAll('button.answer')) button.disabled = true;
  for (const control of $('detail').querySelectorAll('input, select')) control.disabled = true;
}

function closeDetail() {
  const id = openId;
  openId = undefined;
  $('detail').hidden = true;
  document.body.classList.remove('detail-open');
  const row = id && questions.get(id)?.row.querySelector('button');
  (row || $('inbox-title')).focus();
}

function openQuestion(id) {
  const entry = questions.get(id);
  if (!entry) return;
  const { q } = entry;
  openId = id;
  const body = $('detail-body');
  body.replaceChildren();
  $('detail-title').textContent = `${q.server}.${q.tool} asks`;
  body.append(
    el('p', { class: 'asks' }, q.message),
    el(
      'dl',
      { class: 'facts' },
      el('dt', {}, 'Time left'),
      el('dd', {}, el('span', { 'data-expires': q.expiresAt }, timeLeft(q))),
      el('dt', {}, 'Session'),
      el('dd', {}, q.session),
      el('dt', {}, 'Question'),
      el('dd', {}, q.id),
      q.ambiguous
        ? [el('dt', {}, 'Note'), el('dd', {}, 'Ambiguous: several calls shared the connection when this was asked.')]
        : undefined,
    ),
  );
  openFields = [];
  if (q.mode === 'url') body.append(urlBlock(q.url));
  else {
    openFields = buildFields(q.requestedSchema, `f-${q.id}`);
    if (openFields.length)
      body.append(
        el(
          'fieldset',
          { class: 'fields' },
          el('legend', { class: 'visually-hidden' }, 'Answer'),
          openFields.map((f) => f.node),
        ),
      );
  }
  $('accept').textContent = q.mode === 'url' ? 'Done: accept' : 'Accept';
  $('detail-status').textContent = '';
  $('form-error').textContent = '';
  for (const button of $('detail').querySelectorAll('button.answer')) button.disabled = false;
  $('detail').hidden = false;
  document.body.classList.add('detail-open');
  $('detail-title').focus();
}

function urlBlock(url) {
  let domain = '(not a valid URL)';
  let safe = false;
  try {
    const parsed = new URL(url);
    domain = parsed.hostname;
    safe = parsed.protocol === 'https:' || parsed.protocol === 'http:';
  } catch {
    // Shown as text only.
  }
  return el(
    'div',
    { class: 'url' },
    el('p', {}, 'The server asks you to open a page. Check the domain before you follow the link.'),
    el('p', { class: 'domain' }, 'Domain: ', el('strong', {}, domain)),
    el('p', { class: 'full-url' }, url),
    safe
      ? el('a', { href: url, target: '_blank', rel: 'noopener noreferrer', class: 'follow' }, `Open ${domain} in a new tab`)
      : undefined,
  );
}

async function answer(action) {
  const id = openId;
  if (!id) return;
  const entry = questions.get(id);
  $('form-error').textContent = '';
  let body;
  if (action === 'accept' && entry.q.mode === 'form') {
    const content = collect(openFields);
    if (!content) {
      $('form-error').textContent = 'Some answers need a change (see the fields marked).';
      return;
    }
    body = { content };
  }
  const { status, body: reply } = await api(`/v1/elicit/${id}/${action}`, {
    method: 'POST',
    body: body ?? (action === 'accept' ? {} : undefined),
  });
  if (status === 200) {
    const done = { accept: 'Accepted', decline: 'Declined', cancel: 'Cancelled' }[action];
    // The event stream may have removed it already; this page's own answer is what the person needs to read.
    removeQuestion(id);
    if (openId === id) finish(`${done}: the call resumes.`);
    return;
  }
  const error = reply && reply.error ? reply.error : { message: `The daemon answered ${status}.` };
  if (status === 422 && Array.isArray(error.data?.issues)) {
    const unplaced = [];
    for (const issue of error.data.issues) {
      const field = openFields.find((f) => f.name === issue.field);
      if (field) showIssue(field, issue.message);
      else unplaced.push(issue.message);
    }
    $('form-error').textContent = unplaced.length
      ? unplaced.join('; ')
      : 'The server refused some answers (see the fields marked); the question is still waiting.';
    openFields.find((f) => f.node.classList.contains('invalid'))?.focus();
    return;
  }
  if (status === 409 || status === 410 || status === 404) {
    removeQuestion(id);
    if (openId === id) finish(error.message);
    return;
  }
  $('form-error').textContent = error.message;
}

function tick() {
  for (const node of document.querySelectorAll('[data-expires]')) {
    const left = Number(node.dataset.expires) - Date.now();
    node.textContent = left > 0 ? `${duration(left)} left` : 'expiring';
    node.closest('.question')?.classList.toggle('soon', left < 60_000);
  }
}

async function loadPending() {
  const { status, body } = await api('/v1/elicit');
  if (status !== 200) return;
  const seen = new Set(body.elicitations.map((q) => q.id));
  for (const id of [...questions.keys()]) if (!seen.has(id)) removeQuestion(id, 'No longer waiting.');
  for (const q of body.elicitations) addQuestion(q);
}

function follow() {
  const events = new EventSource('/v1/events?kinds=elicit.open,elicit.answered,elicit.expired,elicit.abandoned');
  // `ready` comes once the subscription is live: listing after it misses nothing.
  events.addEventListener('ready', () => {
    setLive('live');
    void loadPending();
  });
  events.addEventListener('elicit.open', async (message) => {
    const event = JSON.parse(message.data);
    const { status, body } = await api(`/v1/elicit/${event.elicit}`);
    if (status === 200) {
      addQuestion(body.elicitation);
      $('announce').textContent = `New question from ${body.elicitation.server}.${body.elicitation.tool}`;
    }
  });
  const ended = (verb) => (message) => {
    const event = JSON.parse(message.data);
    const by = event.by ? ` by ${event.by}` : '';
    removeQuestion(event.elicit, `This question was ${verb}${by}.`);
  };
  events.addEventListener('elicit.answered', (m) => {
    const action = JSON.parse(m.data).action;
    ended({ accept: 'accepted', decline: 'declined', cancel: 'cancelled' }[action] || 'answered')(m);
  });
  events.addEventListener('elicit.expired', ended('cancelled at its deadline'));
  events.addEventListener('elicit.abandoned', ended('abandoned (the call that asked is gone)'));
  events.addEventListener('error', async () => {
    if (events.readyState === EventSource.CLOSED) {
      // Not retried by the browser: usually the session ended.
      const { status } = await api('/ui/session');
      if (status === 401) showSignIn('Your sign-in has ended.');
      else setTimeout(follow, 2000);
    } else setLive('reconnecting…');
  });
}

function showSignIn(message) {
  setLive('signed out');
  $('signout').hidden = true;
  for (const id of ['inbox', 'detail', 'history']) $(id).hidden = true;
  if (message) $('signin-reason').textContent = message;
  $('signin').hidden = false;
}

async function main() {
  // A sign-in link opened in a tab already on the inbox changes only the fragment: load the page again for it.
  addEventListener('hashchange', () => {
    if (location.hash.includes('code=')) location.reload();
  });
  const signedIn = await signIn();
  if (!signedIn.ok) {
    showSignIn(signedIn.message);
    return;
  }
  $('signout').hidden = false;
  $('signout').addEventListener('click', async () => {
    await api('/ui/session', { method: 'DELETE' });
    showSignIn('Signed out.');
  });
  if (location.pathname.replace(/\/$/, '') === '/ui/history') {
    $('nav-history').setAttribute('aria-current', 'page');
    $('nav-inbox').removeAttribute('aria-current');
    $('history').hidden = false;
    setLive('');
    void api('/v1/elicit').then(({ status, body }) => {
      if (status === 200) $('count').textContent = String(body.elicitations.length);
    });
    await showHistory($('history-body'), $('history-days'));
    return;
  }
  $('inbox').hidden = false;
  $('answer-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void answer('accept');
  });
  $('decline').addEventListener('click', () => void answer('decline'));
  $('cancel').addEventListener('click', () => void answer('cancel'));
  $('back').addEventListener('click', closeDetail);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && openId) closeDetail();
  });
  setInterval(tick, 1000);
  follow();
}

void main();
