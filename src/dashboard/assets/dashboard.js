// The audit dashboard page: polls the JSON API every 2 s and renders it. Every value from the API goes into the
// page through textContent (never innerHTML): tool names and messages are chosen by callers.
'use strict';
(function () {
  const REFRESH_MS = 2000;
  const ANONYMOUS_SEGMENT = '-';
  const state = { window: '1h', agent: undefined, chart: undefined, timer: undefined, busy: false, again: false };

  const $ = (id) => document.getElementById(id);

  function el(tag, props, children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (key === 'text') node.textContent = value;
        else if (key === 'className') node.className = value;
        else if (key === 'dataset') Object.assign(node.dataset, value);
        else node.setAttribute(key, value);
      }
    }
    for (const child of children || []) if (child) node.appendChild(child);
    return node;
  }

  // An OAuth subject and a static token of the same name are two agents: the OAuth one is marked.
  function agentName(agent) {
    if (agent.overflow) return '(other series)';
    if (agent.principal === null) return '(anonymous)';
    return agent.auth === 'oauth' ? `${agent.principal} (OAuth)` : agent.principal;
  }

  // The principal goes in the query: a token id spelt `.` or `..` would be resolved away in a path segment.
  function agentPath(agent) {
    if (agent.principal === null) return `/api/refusals?principal=${ANONYMOUS_SEGMENT}&`;
    return `/api/refusals?principal=${encodeURIComponent(agent.principal)}&auth=${agent.auth === 'oauth' ? 'oauth' : 'token'}&`;
  }

  function percent(rate) {
    return `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)} %`;
  }

  function ago(iso) {
    const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (seconds < 60) return `${seconds} s ago`;
    if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
    if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
    return `${Math.floor(seconds / 86400)} d ago`;
  }

  function clientText(client) {
    if (!client || client.name === null) return '–';
    return client.version === null ? client.name : `${client.name} ${client.version}`;
  }

  async function getJson(url) {
    const res = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
    if (!res.ok) {
      let message = `HTTP ${res.status}`;
      try {
        message = (await res.json()).error || message;
      } catch {
        // not JSON: keep the status
      }
      throw new Error(message);
    }
    return res.json();
  }

  function renderTotals(summary) {
    $('total-calls').textContent = String(summary.totals.calls);
    $('total-refusals').textContent = String(summary.totals.refusals);
    $('total-errors').textContent = String(summary.totals.errors);
    const flagged = summary.agents.filter((a) => a.flagged);
    $('total-flagged').textContent = String(flagged.length);
    const list = $('flagged-items');
    list.replaceChildren(
      ...flagged.map((agent) => {
        const worst = agent.tools[0];
        const message = worst && worst.top_messages[0];
        return el('li', { dataset: { agent: agentName(agent) } }, [
          agentButton(agent),
          document.createTextNode(
            `: ${agent.refusals} of ${agent.calls} calls refused (${percent(agent.refusal_rate)})` +
              (worst ? `, mostly on ${worst.tool}` : '') +
              (message ? ` — “${message.message}”` : ''),
          ),
        ]);
      }),
    );
    $('flagged').hidden = flagged.length === 0;
    const throttled = summary.agents.filter((a) => a.throttled > 0);
    $('total-throttled').textContent = String(throttled.length);
    $('throttled-items').replaceChildren(
      ...throttled.map((agent) =>
        el('li', { dataset: { agent: agentName(agent) } }, [
          agentButton(agent),
          document.createTextNode(`: ${agent.throttled} of ${agent.calls} calls refused by a rate limit`),
        ]),
      ),
    );
    $('throttled').hidden = throttled.length === 0;
    const rule = summary.flag_rule;
    $('rule').textContent =
      `An agent is flagged when it has at least ${rule.min_refusals} refused calls and a refusal ` +
      `rate of at least ${percent(rule.min_rate)} in the window. Click an agent for its recent refusals.`;
  }

  function agentButton(agent) {
    const button = el('button', {
      type: 'button',
      className: 'agent-button',
      text: agentName(agent),
      'aria-label': `Show the recent refusals of ${agentName(agent)}`,
    });
    if (agent.overflow) button.disabled = true;
    else button.addEventListener('click', () => openRefusals(agent));
    return button;
  }

  function renderTable(summary) {
    const rows = [];
    for (const agent of summary.agents) {
      agent.tools.forEach((tool, index) => {
        const agentCell = el('td', { dataset: { label: 'Agent', col: 'agent' } });
        if (index === 0) {
          agentCell.appendChild(agentButton(agent));
          if (agent.flagged) agentCell.appendChild(el('span', { className: 'badge', text: 'failing' }));
          if (agent.throttled > 0) agentCell.appendChild(el('span', { className: 'badge', text: 'throttled' }));
        } else {
          agentCell.appendChild(el('span', { className: 'muted', text: agentName(agent), 'aria-hidden': 'true' }));
        }
        const bar = el('span', { className: 'rate-bar' }, [el('span')]);
        bar.firstChild.style.width = `${Math.round(tool.refusal_rate * 100)}%`;
        const messages = el(
          'ul',
          { className: 'messages' },
          tool.top_messages.map((m) =>
            el('li', null, [
              el('span', { className: 'count', text: String(m.count) }),
              el('span', { className: 'message', text: m.message }),
            ]),
          ),
        );
        if (tool.other_messages > 0) {
          messages.appendChild(el('li', { className: 'muted', text: `+ ${tool.other_messages} other` }));
        }
        const lastSeen = el('td', {
          className: 'nowrap',
          dataset: { label: 'Last seen', col: 'last-seen' },
          title: tool.last_seen,
          text: ago(tool.last_seen),
        });
        rows.push(
          el(
            'tr',
            {
              className: agent.flagged ? 'flagged' : '',
              dataset: {
                agent: agentName(agent),
                tool: tool.tool,
                gateway: tool.gateway,
                flagged: String(agent.flagged),
              },
            },
            [
              agentCell,
              el('td', { className: 'mono', dataset: { label: 'Gateway', col: 'gateway' }, text: tool.gateway }),
              el('td', { className: 'mono nowrap', dataset: { label: 'Tool', col: 'tool' }, text: tool.tool }),
              el('td', { className: 'num', dataset: { label: 'Calls', col: 'calls' }, text: String(tool.calls) }),
              el('td', {
                className: `num${tool.refusals > 0 ? ' refused-count' : ''}`,
                dataset: { label: 'Refused', col: 'refusals' },
                text: String(tool.refusals),
              }),
              el('td', { className: 'num', dataset: { label: 'Rate', col: 'rate' } }, [
                document.createTextNode(percent(tool.refusal_rate)),
                bar,
              ]),
              el('td', { dataset: { label: 'Messages', col: 'messages' } }, [
                tool.top_messages.length > 0 ? messages : el('span', { className: 'muted', text: '–' }),
              ]),
              lastSeen,
            ],
          ),
        );
      });
    }
    $('agents-body').replaceChildren(...rows);
    $('agents-empty').hidden = rows.length > 0;
  }

  function renderServices(summary) {
    const rows = (summary.services || []).map((service) => {
      const messages = el(
        'ul',
        { className: 'messages' },
        service.top_messages.map((m) =>
          el('li', null, [
            el('span', { className: 'count', text: String(m.count) }),
            el('span', { className: 'message', text: m.message }),
          ]),
        ),
      );
      return el('tr', { dataset: { tool: service.tool, gateway: service.gateway } }, [
        el('td', { className: 'mono', dataset: { label: 'Gateway', col: 'gateway' }, text: service.gateway }),
        el('td', { className: 'mono nowrap', dataset: { label: 'Tool', col: 'tool' }, text: service.tool }),
        el('td', { className: 'num', dataset: { label: 'Calls', col: 'calls' }, text: String(service.calls) }),
        el('td', { className: 'num', dataset: { label: 'Errors', col: 'errors' }, text: String(service.errors) }),
        el('td', { className: 'num', dataset: { label: 'Rate', col: 'rate' }, text: percent(service.error_rate) }),
        el('td', { dataset: { label: 'Messages', col: 'messages' } }, [
          service.top_messages.length > 0 ? messages : el('span', { className: 'muted', text: '–' }),
        ]),
        el('td', {
          className: 'nowrap',
          dataset: { label: 'Last seen', col: 'last-seen' },
          title: service.last_seen,
          text: ago(service.last_seen),
        }),
      ]);
    });
    $('services-body').replaceChildren(...rows);
    $('services-empty').hidden = rows.length > 0;
  }

  function chartSize() {
    const box = $('chart');
    const width = Math.max(280, box.clientWidth);
    return { width, height: width < 600 ? 200 : 260 };
  }

  function renderChart(series) {
    const data = [series.t.map((ms) => ms / 1000), series.calls, series.refusals, series.errors];
    if (state.chart === undefined) {
      const opts = {
        ...chartSize(),
        cursor: { drag: { x: false, y: false } },
        scales: { y: { range: (u, min, max) => [0, Math.max(4, max * 1.1)] } },
        axes: [{}, { size: 50 }],
        series: [
          {},
          { label: 'Calls', stroke: '#2563eb', fill: 'rgba(37,99,235,0.08)', width: 2 },
          { label: 'Refused', stroke: '#dc2626', fill: 'rgba(220,38,38,0.10)', width: 2 },
          { label: 'Service errors', stroke: '#d97706', width: 1.5, dash: [6, 4] },
        ],
      };
      state.chart = new uPlot(opts, data, $('chart'));
    } else {
      state.chart.setData(data);
    }
  }

  function renderRefusals(body) {
    const rows = body.refusals.map((r) =>
      el('tr', null, [
        el('td', { dataset: { label: 'Time' }, title: r.ts, text: new Date(r.ts).toLocaleString() }),
        el('td', { className: 'mono', dataset: { label: 'Gateway' }, text: r.gateway }),
        el('td', { className: 'mono', dataset: { label: 'Tool' }, text: r.tool }),
        el('td', { dataset: { label: 'Message' }, text: r.message }),
        el('td', { dataset: { label: 'Client' }, text: clientText(r.client) }),
      ]),
    );
    $('refusals-body').replaceChildren(...rows);
    $('refusals-empty').hidden = rows.length > 0;
  }

  function openRefusals(agent) {
    state.agent = agent;
    $('refusals-title').textContent = `Recent refusals of ${agentName(agent)}`;
    $('refusals').hidden = false;
    $('refusals-body').replaceChildren();
    refresh().then(() => $('refusals').scrollIntoView({ behavior: 'smooth', block: 'start' }));
  }

  async function refresh() {
    if (state.busy) {
      state.again = true; // the window or agent changed meanwhile: refresh once more when this one is done
      return;
    }
    state.busy = true;
    state.again = false;
    const window = state.window;
    try {
      const q = `window=${encodeURIComponent(window)}`;
      const requests = [getJson(`/api/summary?${q}`), getJson(`/api/timeseries?${q}`)];
      if (state.agent !== undefined) requests.push(getJson(`${agentPath(state.agent)}${q}&limit=15`));
      const [summary, series, refusals] = await Promise.all(requests);
      if (window !== state.window) return; // switched meanwhile: the next refresh renders the new window
      renderTotals(summary);
      renderTable(summary);
      renderServices(summary);
      renderChart(series);
      if (refusals) renderRefusals(refusals);
      const ingest = summary.ingest;
      $('status').className = 'status';
      $('status').textContent =
        `Updated ${new Date().toLocaleTimeString()} · ${ingest.files} audit file(s) · ` +
        `${ingest.records} records · ${ingest.malformed} malformed line(s) skipped` +
        (ingest.unreadable_dirs.length > 0 ? ` · unreadable: ${ingest.unreadable_dirs.join(', ')}` : '');
    } catch (err) {
      $('status').className = 'status stale';
      $('status').textContent = `Update failed: ${err.message} (retrying)`;
    } finally {
      state.busy = false;
      if (state.again) refresh();
    }
  }

  function selectWindow(name) {
    state.window = name;
    for (const button of document.querySelectorAll('.window-switch button')) {
      button.setAttribute('aria-pressed', String(button.dataset.window === name));
    }
    refresh();
  }

  function start() {
    for (const button of document.querySelectorAll('.window-switch button')) {
      button.addEventListener('click', () => selectWindow(button.dataset.window));
    }
    $('refusals-close').addEventListener('click', () => {
      state.agent = undefined;
      $('refusals').hidden = true;
    });
    window.addEventListener('resize', () => {
      if (state.chart !== undefined) state.chart.setSize(chartSize());
    });
    refresh();
    state.timer = setInterval(refresh, REFRESH_MS);
  }

  start();
})();
