// Sluice's dashboard: one snapshot a second over server-sent events (polling when they fail), nothing while the tab
// is hidden. Every address is relative, so the page works under any base path.
(() => {
  'use strict';

  const API = '../api/v1/';
  const STATES = ['waiting', 'delayed', 'active', 'completed', 'failed'];
  const RANK = { none: -1, read: 0, operate: 1, admin: 2 };
  const ui = {
    snapshot: null,
    queue: null,
    history: {},
    scope: 'admin',
    source: null,
    poller: null,
    jobState: 'waiting',
    jobsAt: 0,
    job: null,
    prefix: '',
    searchAt: 0,
    charts: {},
  };

  const $ = (id) => document.getElementById(id);
  const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) =>
    ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  const enc = encodeURIComponent;
  const can = (scope) => RANK[ui.scope] >= RANK[scope];

  function setHtml(el, html) {
    if (el.dataset.html !== html) {
      el.innerHTML = html;
      el.dataset.html = html;
    }
  }

  function clock(iso) {
    return iso ? new Date(iso).toLocaleTimeString([], { hour12: false }) : '—';
  }

  function span(ms) {
    const s = Math.round(Math.abs(ms) / 1000);
    if (s < 60) return s + 's';
    if (s < 3600) return Math.floor(s / 60) + 'm ' + (s % 60) + 's';
    return Math.floor(s / 3600) + 'h ' + Math.floor((s % 3600) / 60) + 'm';
  }

  function relative(iso) {
    if (!iso) return '—';
    const ms = new Date(iso) - Date.now();
    return ms >= 0 ? 'in ' + span(ms) : span(ms) + ' ago';
  }

  function millis(ms) {
    if (ms == null) return '—';
    return ms < 1000 ? ms.toFixed(ms < 10 ? 1 : 0) + ' ms' : (ms / 1000).toFixed(1) + ' s';
  }

  function rate(x) {
    return x == null ? '—' : x.toFixed(x < 10 ? 1 : 0);
  }

  function word(node) {
    const cls = 'word word-' + node.word.replace(/ /g, '-');
    const until = node.until ? ' until ' + clock(node.until) : '';
    const title = node.until ? ' title="' + esc(relative(node.until)) + '"' : '';
    return `<span class="${esc(cls)}"${title}>${esc(node.word + until)}</span>`;
  }

  function button(action, label, data, danger) {
    const attrs = Object.entries(data).map(([k, v]) => ` data-${k}="${esc(v)}"`).join('');
    return `<button type="button" data-action="${action}"${attrs}${danger ? ' class="danger"' : ''}>${esc(label)}</button>`;
  }

  let flashTimer = null;
  function flash(text, ok) {
    const el = $('flash');
    el.textContent = text;
    el.className = ok ? 'ok' : '';
    el.hidden = false;
    clearTimeout(flashTimer);
    flashTimer = setTimeout(() => { el.hidden = true; }, ok ? 3000 : 8000);
  }

  // Calls the API; a refusal throws an Error with the problem's detail.
  async function call(method, path, body) {
    const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const res = await fetch(API + path, init);
    let json = null;
    try {
      json = await res.json();
    } catch (notJson) {
      json = null;
    }
    if (!res.ok) {
      const error = new Error(json && json.detail ? json.detail : `${method} ${path}: HTTP ${res.status}`);
      error.status = res.status;
      throw error;
    }
    return json;
  }

  // ---- access ----

  async function session() {
    const res = await fetch(API + 'session', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (res.status === 404) {
      ui.scope = 'admin'; // no sessions on this server: the API decides alone
      $('access').textContent = '';
      $('token-form').hidden = true;
    } else if (res.ok) {
      const who = await res.json();
      ui.scope = who.scope in RANK ? who.scope : 'none';
      $('access').textContent = !can('read') ? 'a token is needed'
        : (who.name ? who.name + ' · ' : '') + ui.scope + (can('operate') ? '' : ' (read-only)');
      $('token-form').hidden = ui.scope === 'admin' || !who.tokens;
    } else {
      ui.scope = 'none';
      $('access').textContent = 'a token is needed';
      $('token-form').hidden = false;
    }
    render();
  }

  $('token-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await call('POST', 'session', { token: $('token').value });
      $('token').value = '';
      await session();
      connect();
    } catch (e) {
      flash(e.message);
    }
  });

  // ---- live updates ----

  function setLive(text, cls) {
    const el = $('live');
    el.textContent = text;
    el.className = 'live ' + (cls || '');
  }

  function disconnect() {
    if (ui.source) {
      ui.source.close();
      ui.source = null;
    }
    if (ui.poller) {
      clearInterval(ui.poller);
      ui.poller = null;
    }
  }

  function connect() {
    disconnect();
    if (!can('read')) {
      setLive('a token is needed');
      return;
    }
    if (!('EventSource' in window)) {
      poll();
      return;
    }
    const source = new EventSource(API + 'dashboard/events');
    ui.source = source;
    source.addEventListener('history', (e) => onHistory(JSON.parse(e.data)));
    source.addEventListener('snapshot', (e) => onSnapshot(JSON.parse(e.data)));
    source.onopen = () => setLive('live', 'on');
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        ui.source = null;
        poll();
      } else {
        setLive('reconnecting…');
      }
    };
  }

  function poll() {
    disconnect();
    setLive('polling', 'poll');
    call('GET', 'dashboard/history').then(onHistory).catch(() => {});
    const tick = () => call('GET', 'dashboard/snapshot').then(onSnapshot).catch((e) => setLive('offline: ' + e.message));
    tick();
    ui.poller = setInterval(tick, 2000);
  }

  document.addEventListener('visibilitychange', () => {
    if (document.hidden) {
      disconnect();
      setLive('paused while hidden');
    } else {
      connect();
    }
  });

  function onHistory(history) {
    ui.history = history.queues || {};
    drawCharts();
  }

  function onSnapshot(snapshot) {
    ui.snapshot = snapshot;
    for (const queue of snapshot.queues) {
      const columns = ui.history[queue.name] || (ui.history[queue.name] = {
        t: [], completedPerSecond: [], failedPerSecond: [], waiting: [], active: [], failed: [],
      });
      const point = queue.point;
      if (!columns.t.length || point.t > columns.t[columns.t.length - 1]) {
        for (const key of Object.keys(columns)) {
          columns[key].push(point[key]);
          if (columns[key].length > 600) columns[key].shift();
        }
      }
    }
    if (!snapshot.queues.some((q) => q.name === ui.queue)) {
      ui.queue = snapshot.queues.length ? snapshot.queues[0].name : null;
      ui.job = null;
      ui.jobsAt = 0;
    }
    $('at').textContent = 'updated ' + clock(snapshot.at);
    render();
  }

  // ---- rendering ----

  function selected() {
    return ui.snapshot ? ui.snapshot.queues.find((q) => q.name === ui.queue) : null;
  }

  function render() {
    if (!ui.snapshot) return;
    for (const el of document.querySelectorAll('.queue-name')) el.textContent = ui.queue || '—';
    renderQueues();
    drawCharts();
    renderGroups();
    renderWorkers();
    renderLimiters();
    renderEngine();
    if (Date.now() - ui.jobsAt > 3000) loadJobs();
  }

  function renderQueues() {
    const rows = ui.snapshot.queues.map((q) => {
      const c = q.counts;
      const action = !can('operate') ? ''
        : q.paused ? button('resume-queue', 'Resume', { queue: q.name })
          : button('pause-queue', 'Pause', { queue: q.name });
      return `<tr data-queue="${esc(q.name)}"${q.name === ui.queue ? ' class="selected"' : ''}>
        <td><b>${esc(q.name)}</b></td><td class="c-word">${word(q)}</td>
        <td class="n c-waiting">${c.waiting}</td><td class="n c-delayed">${c.delayed}</td>
        <td class="n c-active">${c.active}</td><td class="n c-completed">${c.completed}</td>
        <td class="n c-failed">${c.failed}</td>
        <td class="n">${rate(q.throughput.completedPerSecond)}</td><td class="n">${rate(q.throughput.failedPerSecond)}</td>
        <td class="n">${millis(q.waitTime.p50Ms)} / ${millis(q.waitTime.p99Ms)}</td>
        <td class="n">${millis(q.processingTime.p50Ms)} / ${millis(q.processingTime.p99Ms)}</td>
        <td class="n">${q.busy}/${q.slots} in ${q.workers.length}</td><td>${action}</td></tr>`;
    });
    setHtml($('queues').tBodies[0], rows.join(''));
    $('no-queues').hidden = rows.length > 0;
  }

  function chart(id, series) {
    const el = $(id);
    const width = Math.max(200, el.clientWidth);
    let plot = ui.charts[id];
    if (!plot) {
      plot = new uPlot({
        width,
        height: 170,
        legend: { live: false },
        scales: { y: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] } },
        axes: [{ space: 90 }, { size: 48 }],
        series: [{}].concat(series.map(([label, stroke, fill]) => ({ label, stroke, width: 2, fill, points: { show: false } }))),
      }, [[], ...series.map(() => [])], el);
      ui.charts[id] = plot;
    } else if (Math.abs(plot.width - width) > 4) {
      plot.setSize({ width, height: 170 });
    }
    return plot;
  }

  function drawCharts() {
    if (typeof uPlot === 'undefined') return;
    const h = ui.history[ui.queue] || { t: [], completedPerSecond: [], failedPerSecond: [], waiting: [], active: [] };
    chart('throughput-chart', [['completed/s', '#1a7f37', 'rgba(26,127,55,.08)'], ['failed/s', '#cf222e']])
      .setData([h.t, h.completedPerSecond, h.failedPerSecond]);
    chart('backlog-chart', [['waiting', '#0969da', 'rgba(9,105,218,.08)'], ['active', '#bc4c00']])
      .setData([h.t, h.waiting, h.active]);
  }

  function limits(g) {
    const l = g.limits;
    const parts = [];
    if (l.concurrency != null) parts.push('≤' + l.concurrency + ' at once');
    if (l.rate != null) parts.push(l.rate);
    if (l.maxQueued != null) parts.push('≤' + l.maxQueued + ' queued');
    return esc(parts.join(', ') || 'none') + (g.ownLimits ? ' <span class="muted">(own)</span>' : '');
  }

  function renderGroups() {
    const q = selected();
    if (!q) return;
    if (ui.prefix && Date.now() - ui.searchAt > 2000) searchGroups();
    if (ui.prefix) return;
    drawGroups(q.groups.top);
    $('groups-note').textContent = q.groups.top.length
      ? `the ${q.groups.top.length} most throttled and busiest of ${q.groups.read}${q.groups.more ? '+' : ''} groups`
      : 'no groups';
  }

  function drawGroups(groups) {
    const rows = groups.map((g) => {
      const held = g.word === 'paused' || g.word === 'rate-limited';
      const action = !can('operate') ? ''
        : held ? button('resume-group', g.word === 'paused' ? 'Resume' : 'Release', { group: g.name })
          : button('pause-group', 'Pause', { group: g.name });
      return `<tr data-group="${esc(g.name)}"><td>${esc(g.name)}</td><td class="c-word">${word(g)}</td>
        <td class="n">${g.waiting}</td><td class="n">${g.delayed}</td><td class="n">${g.active}</td>
        <td>${limits(g)}</td><td>${action}</td></tr>`;
    });
    setHtml($('groups').tBodies[0], rows.join(''));
  }

  async function searchGroups() {
    const queue = ui.queue;
    const prefix = ui.prefix;
    ui.searchAt = Date.now();
    try {
      const page = await call('GET', `queues/${enc(queue)}/groups?prefix=${enc(prefix)}&limit=50`);
      if (queue !== ui.queue || prefix !== ui.prefix) return;
      drawGroups(page.groups);
      $('groups-note').textContent = `${page.groups.length}${page.groups.length === 50 ? '+' : ''} groups starting with "${prefix}"`;
    } catch (e) {
      flash(e.message);
    }
  }

  let searchTimer = null;
  $('group-prefix').addEventListener('input', (e) => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      ui.prefix = e.target.value.trim();
      if (ui.prefix) searchGroups(); else renderGroups();
    }, 250);
  });

  function renderWorkers() {
    const q = selected();
    if (!q) return;
    const rows = q.workers.map((w) => `<tr><td title="${esc(w.id)}">${esc(w.id.slice(0, 18))}</td><td>${esc(w.host)}</td>
      <td class="n">${w.pid}</td><td class="n">${w.busy}/${w.concurrency}</td>
      <td>${w.leaseEnds ? relative(w.leaseEnds) : '—'}</td><td>${relative(w.lastSeen)}</td></tr>`);
    setHtml($('workers').tBodies[0], rows.join(''));
    $('workers-note').textContent = q.workers.length ? '' : 'no worker is attached: waiting jobs do not run';
  }

  function renderLimiters() {
    const limiters = ui.snapshot.limiters || [];
    $('limiters-section').hidden = limiters.length === 0;
    const params = (p) => Object.entries(p).filter(([k]) => k !== 'policy').map(([k, v]) => `${k} ${v}`).join(', ');
    const rows = limiters.map((l) => `<tr data-limiter="${esc(l.name)}"${l.deniedPerSecond > 0 ? ' class="throttled"' : ''}>
      <td><b>${esc(l.name)}</b></td><td>${esc(l.policy)} <span class="muted">${esc(params(l.parameters))}</span></td>
      <td class="n c-allowed-rate">${rate(l.allowedPerSecond)}</td><td class="n c-denied-rate">${rate(l.deniedPerSecond)}</td>
      <td class="n c-allowed">${l.allowed}</td><td class="n c-denied">${l.denied}</td>
      <td class="n">${l.unavailable}</td></tr>`);
    setHtml($('limiters').tBodies[0], rows.join(''));
  }

  function renderEngine() {
    const sections = Object.entries(ui.snapshot.engine).map(([name, fields]) => {
      const rows = Object.entries(fields).map(([key, value]) => {
        let shown = value;
        if (typeof value === 'number' && key.endsWith('Bytes')) shown = (value / 1048576).toFixed(1) + ' MiB';
        else if (typeof value === 'number' && key.endsWith('Ms')) shown = span(value);
        return `<tr${key === 'warning' ? ' class="warning"' : ''}><th>${esc(key)}</th><td>${esc(shown)}</td></tr>`;
      });
      return `<table data-section="${esc(name)}"><thead><tr><th colspan="2">${esc(name)}</th></tr></thead>
        <tbody>${rows.join('')}</tbody></table>`;
    });
    setHtml($('engine'), sections.join(''));
  }

  // ---- jobs ----

  function renderTabs() {
    setHtml($('states'), STATES.map((s) =>
      `<button type="button" data-action="state" data-state="${s}"${s === ui.jobState ? ' class="on"' : ''}>${s}</button>`)
      .join('') + bulkActions(ui.jobState));
  }

  /** What can be done to every job of a state at once, as far as the caller's scope goes. */
  function bulkActions(state) {
    const all = [];
    if (state === 'failed' && can('operate')) {
      all.push(button('retry-failed', 'Retry all', { confirm: 'Retry every failed job?' }));
    }
    if ((state === 'failed' || state === 'completed') && can('admin')) {
      all.push(button('clean', 'Remove all', { state, confirm: `Remove every ${state} job?` }, true));
    }
    if ((state === 'waiting' || state === 'delayed') && can('admin')) {
      const delayed = state === 'delayed';
      all.push(button('drain', delayed ? 'Drain with delayed' : 'Drain',
        { delayed, confirm: delayed ? 'Remove every waiting and delayed job?' : 'Remove every waiting job?' }, true));
    }
    return all.length ? `<span class="bulk">${all.join(' ')}</span>` : '';
  }

  async function loadJobs() {
    ui.jobsAt = Date.now();
    renderTabs();
    const queue = ui.queue;
    const state = ui.jobState;
    if (!queue) return;
    try {
      const page = await call('GET', `queues/${enc(queue)}/jobs?state=${state}&limit=25`);
      if (queue !== ui.queue || state !== ui.jobState) return;
      const rows = page.jobs.map((j) => `<tr data-job="${esc(j.id)}"${ui.job === j.id ? ' class="selected"' : ''}>
        <td>${esc(j.id)}</td><td>${esc(j.name)}</td><td>${esc(j.group ?? '')}</td><td class="n">${j.attemptsMade}</td>
        <td>${clock(j.createdAt)}</td><td>${clock(j.finishedAt)}</td><td>${esc(j.failureReason ?? '')}</td></tr>`);
      setHtml($('jobs').tBodies[0], rows.join('') || `<tr><td colspan="7" class="muted">no ${state} jobs</td></tr>`);
    } catch (e) {
      if (e.status !== 404) flash(e.message);
    }
  }

  async function showJob(id) {
    ui.job = id;
    const queue = ui.queue;
    let job;
    try {
      job = await call('GET', `queues/${enc(queue)}/jobs/${enc(id)}`);
    } catch (e) {
      flash(e.message);
      $('job').hidden = true;
      return;
    }
    const data = { queue, job: job.id };
    const actions = [];
    if (can('operate')) {
      if (job.state === 'failed' || job.state === 'completed') actions.push(button('retry', 'Retry', { ...data, from: job.state }));
      if (job.state === 'delayed') actions.push(button('promote', 'Promote', data));
      if (job.state !== 'active') actions.push(button('remove', 'Remove', data, true));
    }
    const field = (name, value) => `<dt>${esc(name)}</dt><dd>${esc(value ?? '—')}</dd>`;
    const attempts = job.attempts.map((a) => `<tr><td class="n">${a.number}</td><td>${clock(a.startedAt)}</td>
      <td>${clock(a.finishedAt)}</td><td>${esc(a.outcome ?? 'running')}</td><td>${esc(a.error ?? '')}</td></tr>`).join('');
    const failure = job.failure
      ? `<h3>Error</h3><pre class="failure">${esc(job.failure.exceptionClass ?? '')}: ${esc(job.failure.reason)}\n${esc(job.failure.stackTrace ?? '')}</pre>`
      : '';
    const html = `<h3>Job ${esc(job.id)} <span class="word">${esc(job.state)}</span> ${actions.join(' ')}</h3>
      <dl>${field('name', job.name)}${field('group', job.group)}${field('attempts', job.attemptsMade + ' of ' + job.options.attempts)}
      ${field('rate limits', job.rateLimits)}${field('created', job.createdAt)}${field('runs at', job.runAt)}
      ${field('started', job.startedAt)}${field('finished', job.finishedAt)}</dl>
      ${attempts ? `<table><thead><tr><th>#</th><th>Started</th><th>Finished</th><th>Outcome</th><th>Error</th></tr></thead><tbody>${attempts}</tbody></table>` : ''}
      ${failure}
      <h3>Payload <span class="muted">${esc(job.payloadEncoding ?? '')}</span></h3><pre class="payload">${esc(job.payload ?? '—')}</pre>
      ${job.result != null ? `<h3>Result</h3><pre class="result">${esc(job.result)}</pre>` : ''}`;
    const el = $('job');
    el.innerHTML = html;
    el.dataset.job = job.id;
    el.hidden = false;
    loadJobs();
  }

  // ---- actions ----

  const ACTIONS = {
    'pause-queue': (d) => ['POST', `queues/${enc(d.queue)}/pause`, `paused ${d.queue}`],
    'resume-queue': (d) => ['POST', `queues/${enc(d.queue)}/resume`, `resumed ${d.queue}`],
    'pause-group': (d) => ['POST', `queues/${enc(ui.queue)}/pause?group=${enc(d.group)}`, `paused group ${d.group}`],
    'resume-group': (d) => ['POST', `queues/${enc(ui.queue)}/resume?group=${enc(d.group)}`, `resumed group ${d.group}`],
    retry: (d) => ['POST', `queues/${enc(d.queue)}/jobs/${enc(d.job)}/retry?from=${enc(d.from)}`, `retried ${d.job}`],
    promote: (d) => ['POST', `queues/${enc(d.queue)}/jobs/${enc(d.job)}/promote`, `promoted ${d.job}`],
    remove: (d) => ['DELETE', `queues/${enc(d.queue)}/jobs/${enc(d.job)}`, `removed ${d.job}`],
    'retry-failed': () => ['POST', `queues/${enc(ui.queue)}/retry-failed`, 'retried every failed job'],
    clean: (d) => ['POST', `queues/${enc(ui.queue)}/clean?state=${enc(d.state)}`, `removed every ${d.state} job`],
    drain: (d) => ['POST', `queues/${enc(ui.queue)}/drain?delayed=${enc(d.delayed)}`, 'drained'],
  };

  document.addEventListener('click', async (event) => {
    const target = event.target.closest('[data-action], tr[data-queue], tr[data-job]');
    if (!target) return;
    if (target.dataset.action === 'state') {
      ui.jobState = target.dataset.state;
      loadJobs();
    } else if (target.dataset.action) {
      event.stopPropagation();
      if (target.dataset.confirm && !window.confirm(target.dataset.confirm)) return;
      const [method, path, done] = ACTIONS[target.dataset.action](target.dataset);
      target.disabled = true;
      try {
        await call(method, path);
        flash(done, true);
        if (target.dataset.job) {
          if (target.dataset.action === 'remove') $('job').hidden = true; else showJob(target.dataset.job);
        }
        if (ui.prefix) searchGroups();
        loadJobs();
      } catch (e) {
        flash(e.message);
      } finally {
        target.disabled = false;
      }
    } else if (target.dataset.queue) {
      ui.queue = target.dataset.queue;
      ui.job = null;
      $('job').hidden = true;
      render();
      loadJobs();
    } else if (target.dataset.job) {
      showJob(target.dataset.job);
    }
  });

  window.addEventListener('resize', drawCharts);

  renderTabs();
  session()
    .catch((e) => flash('the session could not be read: ' + e.message))
    .then(() => {
      if (!document.hidden) connect();
    });
})();
