// json-server middleware of ConvTasks::HTTP::Resource's tests (json-server --middlewares).
//
// json-server itself keeps the objects; this only watches and, when a test asks, misbehaves:
// - with JSON_SERVER_TOKEN set, a request without `Authorization: Bearer <it>` gets a 401;
// - it counts the requests under way at once (the most of them: max_in_flight), and keeps
//   each request's method, path and Idempotency-Key;
// - POST /__control sets what the next requests meet: `fail` (a list of {status, count,
//   method, retry_after, message, echo}: answer that status instead, with that message, or,
//   with `echo`, one quoting the request's Authorization header), `delay_ms` (before each request is handled),
//   `hold_posts` and `hold_ms` (the next POSTs are stored at once but answered that much
//   later), `not_json` (the next POSTs are stored and answered with HTML), `echo_posts` (the
//   next POSTs' answers quote their Authorization header); GET /__control says what it saw;
//   POST /__control/reset forgets it.

const expected = process.env.JSON_SERVER_TOKEN
  ? `Bearer ${process.env.JSON_SERVER_TOKEN}`
  : null;

function fresh() {
  return {
    in_flight: 0,
    max_in_flight: 0,
    requests: [],
    refused: 0,
    unauthorized: 0,
    held: 0,
    fail: [],
    delay_ms: 0,
    hold_posts: 0,
    hold_ms: 0,
    not_json: 0,
    echo_posts: 0,
  };
}

let state = fresh();

function readJson(req, done) {
  if (req.body !== undefined) {
    done(typeof req.body === "object" ? req.body : null); // json-server parsed it already
    return;
  }
  let text = "";
  req.on("data", (chunk) => {
    text += chunk;
  });
  req.on("end", () => {
    try {
      done(text ? JSON.parse(text) : {});
    } catch (err) {
      done(null);
    }
  });
}

function control(req, res) {
  if (req.method === "GET") {
    const { fail, ...seen } = state;
    res.json({ ...seen, pending_failures: fail.reduce((n, rule) => n + rule.count, 0) });
    return;
  }
  if (req.path === "/__control/reset") {
    state = fresh();
    res.json({});
    return;
  }
  readJson(req, (rules) => {
    if (rules === null) {
      res.status(400).json({ message: "control body is not JSON" });
      return;
    }
    for (const rule of rules.fail || []) {
      state.fail.push({ count: 1, ...rule });
    }
    for (const key of ["delay_ms", "hold_posts", "hold_ms", "not_json", "echo_posts"]) {
      if (key in rules) state[key] = rules[key];
    }
    res.json({});
  });
}

function holdAnswer(res, ms) {
  const end = res.end;
  res.end = function (...args) {
    setTimeout(() => end.apply(res, args), ms);
    return res;
  };
}

function answerHtml(res) {
  const status = res.status.bind(res);
  res.jsonp = res.json = function () {
    status(201).type("text/html").send("<html><body><p>stored</p></body></html>");
    return res;
  };
}

function echoAnswer(res, said) {
  const json = res.json.bind(res);
  res.jsonp = res.json = (body) => json({ ...body, seen: said });
}

module.exports = (req, res, next) => {
  if (req.path.startsWith("/__control")) {
    control(req, res);
    return;
  }
  if (expected !== null && req.headers.authorization !== expected) {
    state.unauthorized += 1;
    res.status(401).json({ message: "missing or wrong bearer token" });
    return;
  }
  state.requests.push({
    method: req.method,
    path: req.path,
    idempotency_key: req.headers["idempotency-key"] || null,
  });
  state.in_flight += 1;
  state.max_in_flight = Math.max(state.max_in_flight, state.in_flight);
  let ended = false;
  const finish = () => {
    if (!ended) {
      ended = true;
      state.in_flight -= 1;
    }
  };
  res.on("finish", finish);
  res.on("close", finish);
  const go = () => {
    const rule = state.fail.find(
      (r) => r.count > 0 && (!r.method || r.method === req.method),
    );
    if (rule) {
      rule.count -= 1;
      state.refused += 1;
      if (rule.retry_after !== undefined) res.set("Retry-After", String(rule.retry_after));
      const said = rule.echo
        ? `refused ${req.headers.authorization}`
        : rule.message || "try again later";
      res.status(rule.status).json({ message: said });
      return;
    }
    if (req.method === "POST" && state.hold_posts > 0) {
      state.hold_posts -= 1;
      state.held += 1;
      holdAnswer(res, state.hold_ms);
    }
    if (req.method === "POST" && state.not_json > 0) {
      state.not_json -= 1;
      answerHtml(res);
    }
    if (req.method === "POST" && state.echo_posts > 0) {
      state.echo_posts -= 1;
      echoAnswer(res, req.headers.authorization);
    }
    next();
  };
  if (state.delay_ms > 0) setTimeout(go, state.delay_ms);
  else go();
};
