// Minimal imitation of the Anthropic Messages API for driving a real Claude Code offline (127.0.0.1
// only): the claude-lab's mock, kept here so a clean clone can run `npm run test:claude` by itself.
// Usage: node mock-api.mjs [--port N] [--log FILE] [--port-file FILE]
//   env: MOCK_PORT, MOCK_LOG, MOCK_TOOL_COMMAND (default "touch /tmp/cclab-tool-marker"; "echo hi" is auto-approved as read-only)
// Listens on 127.0.0.1 only. Prints "PORT=<n>" on stdout once listening.
//
// Behaviour of the main agent request (a request whose `tools` include Bash),
// chosen from the text of the LAST user message (system-reminder blocks removed):
//   "SLOW <ms>"  -> streams text slowly over <ms> milliseconds (session shows busy)
//   "TOOL"       -> answers with a tool_use block for Bash ({"command": MOCK_TOOL_COMMAND});
//                   "TOOL <cmd...>" on its own line uses <cmd...> instead.
//   otherwise    -> a short text answer
// If the last user message carries a tool_result, the answer is a short text (no loop).
// Side requests (no Bash tool: titles, classifiers, summaries) get a quick answer.
import http from 'node:http';
import fs from 'node:fs';
import crypto from 'node:crypto';

const args = process.argv.slice(2);
function opt(name, dflt) {
  const i = args.indexOf(name);
  if (i >= 0 && i + 1 < args.length) return args[i + 1];
  return dflt;
}
const positionalPort = args.length && /^\d+$/.test(args[0]) ? args[0] : undefined;
const PORT = Number(opt('--port', positionalPort ?? process.env.MOCK_PORT ?? 0));
const LOG = opt('--log', process.env.MOCK_LOG ?? '');
const PORT_FILE = opt('--port-file', process.env.MOCK_PORT_FILE ?? '');
const TOOL_COMMAND = process.env.MOCK_TOOL_COMMAND ?? 'touch /tmp/cclab-tool-marker';

function log(obj) {
  if (!LOG) return;
  try { fs.appendFileSync(LOG, JSON.stringify({ t: new Date().toISOString(), ...obj }) + '\n'); } catch {}
}

const rid = (p) => p + crypto.randomBytes(12).toString('hex');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => b && b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('\n');
}
function stripReminders(s) {
  return s.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '');
}
function systemText(sys) {
  if (typeof sys === 'string') return sys;
  if (Array.isArray(sys)) return sys.map((b) => (b && b.text) || '').join('\n');
  return '';
}

function decide(body) {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const toolNames = tools.map((t) => t && t.name).filter(Boolean);
  const isMain = toolNames.includes('Bash');
  let lastUser;
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].role === 'user') { lastUser = msgs[i]; break; }
  const hasToolResult = !!(lastUser && Array.isArray(lastUser.content) && lastUser.content.some((b) => b && b.type === 'tool_result'));
  const userText = stripReminders(lastUser ? textOf(lastUser.content) : '').trim();
  const sys = systemText(body.system);
  const summary = {
    model: body.model, stream: !!body.stream, max_tokens: body.max_tokens,
    nMessages: msgs.length, tools: toolNames.length, hasBash: isMain,
    system: sys.slice(0, 160), lastUser: userText.slice(0, 200), hasToolResult,
  };
  if (!isMain) {
    // side request: title / classifier / summary / topic detection, etc.
    let text = 'OK';
    const allUser = msgs.filter((m) => m.role === 'user').map((m) => textOf(m.content)).join('\n');
    if (/decide which of four states/i.test(sys)) {
      // background-job state classifier (used for bg / -p jobs): answer from the agent tail it was given
      if (/Running a command\./.test(allUser) && !/Tool finished\./.test(allUser)) text = JSON.stringify({ state: 'blocked', detail: 'mock: waiting for Bash approval', tempo: 'blocked', needs: 'approve Bash' });
      else if (/Hello from the mock API\.|Slow answer|Tool finished\./.test(allUser)) text = JSON.stringify({ state: 'done', detail: 'mock: answered', tempo: 'idle', output: { result: 'mock answer delivered' } });
      else text = JSON.stringify({ state: 'working', detail: 'mock: working', tempo: 'active' });
    } else if (/2-4 word lowercase label for this job/i.test(allUser) || /2-4 word lowercase label/i.test(sys)) text = 'mock lab job';
    else if (/title/i.test(sys) && /json/i.test(sys)) text = '{"title": "Lab session"}';
    else if (/title/i.test(sys)) text = 'Lab session';
    else if (/isNewTopic/i.test(sys)) text = '{"isNewTopic": false, "title": null}';
    return { kind: 'side', blocks: [{ type: 'text', text }], slowMs: 0, summary };
  }
  if (hasToolResult) return { kind: 'after-tool', blocks: [{ type: 'text', text: 'Tool finished.' }], slowMs: 0, summary };
  const slow = /\bSLOW\s+(\d+)/.exec(userText);
  if (/\bTOOL\b/.test(userText)) {
    const m = /^\s*TOOL[ \t]+(\S.*)$/m.exec(userText);
    const command = m ? m[1].trim() : TOOL_COMMAND;
    return {
      kind: 'tool',
      blocks: [
        { type: 'text', text: 'Running a command.' },
        { type: 'tool_use', id: rid('toolu_'), name: 'Bash', input: { command, description: 'Lab test command' } },
      ],
      slowMs: slow ? Number(slow[1]) : 0,
      summary,
    };
  }
  if (slow) {
    return { kind: 'slow', blocks: [{ type: 'text', text: 'Slow answer '.repeat(20).trim() }], slowMs: Number(slow[1]), summary };
  }
  return { kind: 'text', blocks: [{ type: 'text', text: 'Hello from the mock API.' }], slowMs: 0, summary };
}

function usage(out) {
  return { input_tokens: 10, output_tokens: out, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
}

function messageJson(body, d) {
  const stop = d.blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  return {
    id: rid('msg_'), type: 'message', role: 'assistant', model: body.model || 'claude-mock',
    content: d.blocks, stop_reason: stop, stop_sequence: null, usage: usage(12),
  };
}

async function streamMessage(req, res, body, d) {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': rid('req_'),
    'anthropic-organization-id': '00000000-0000-0000-0000-000000000000',
  });
  let closed = false;
  res.on('close', () => { closed = true; });
  const send = (event, data) => { if (!closed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`); };
  const msg = messageJson(body, d);
  send('message_start', { type: 'message_start', message: { ...msg, content: [], stop_reason: null, usage: usage(1) } });
  send('ping', { type: 'ping' });
  // split text into chunks, spread them over slowMs
  const chunks = [];
  d.blocks.forEach((b, index) => {
    if (b.type === 'text') {
      const words = b.text.split(/(?<= )/);
      for (const w of words) chunks.push({ index, w });
    }
  });
  const perChunk = d.slowMs > 0 && chunks.length ? d.slowMs / chunks.length : 0;
  let ci = 0;
  for (let index = 0; index < d.blocks.length; index++) {
    const b = d.blocks[index];
    if (b.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      while (ci < chunks.length && chunks[ci].index === index) {
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: chunks[ci].w } });
        ci++;
        if (perChunk) await sleep(perChunk);
        if (closed) return;
      }
      send('content_block_stop', { type: 'content_block_stop', index });
    } else if (b.type === 'tool_use') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
      send('content_block_stop', { type: 'content_block_stop', index });
    }
  }
  send('message_delta', { type: 'message_delta', delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: { output_tokens: 12 } });
  send('message_stop', { type: 'message_stop' });
  if (!closed) res.end();
}

function sendJson(res, code, obj) {
  const s = JSON.stringify(obj);
  res.writeHead(code, { 'content-type': 'application/json', 'request-id': rid('req_') });
  res.end(s);
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body = {};
    try { body = raw ? JSON.parse(raw) : {}; } catch {}
    const url = new URL(req.url, 'http://x');
    const path = url.pathname;
    const entry = { method: req.method, path: req.url, ua: req.headers['user-agent'], beta: req.headers['anthropic-beta'], bytes: raw.length };
    try {
      if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
        log({ ...entry, kind: 'count_tokens' });
        return sendJson(res, 200, { input_tokens: Math.max(1, Math.round(raw.length / 4)) });
      }
      if (req.method === 'POST' && path === '/v1/messages') {
        const d = decide(body);
        log({ ...entry, kind: d.kind, slowMs: d.slowMs, ...d.summary });
        if (body.stream) return await streamMessage(req, res, body, d);
        if (d.slowMs) await sleep(d.slowMs);
        return sendJson(res, 200, messageJson(body, d));
      }
      log({ ...entry, kind: 'other', body: raw.slice(0, 300) });
      if (req.method === 'HEAD') { res.writeHead(200); return res.end(); }
      if (path === '/v1/models') return sendJson(res, 200, { data: [], has_more: false, first_id: null, last_id: null });
      return sendJson(res, 200, {});
    } catch (e) {
      log({ ...entry, kind: 'error', error: String(e && e.stack || e) });
      try { sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: 'mock error' } }); } catch {}
    }
  });
});
server.keepAliveTimeout = 60000;
server.listen(PORT, '127.0.0.1', () => {
  const port = server.address().port;
  if (PORT_FILE) fs.writeFileSync(PORT_FILE, String(port));
  process.stdout.write(`PORT=${port}\n`);
  log({ event: 'listening', port, pid: process.pid });
});
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { server.close(); process.exit(0); });
