(function () {
  'use strict';
  var body = document.body;
  window.addEventListener('error', function (event) {
    body.setAttribute('data-render-error', String(event.message || event));
  });
  var data = JSON.parse(document.getElementById('leaderboard-data').textContent);
  var TOLERANCE = 1e-9;
  var TASK_FILTERS = [['benchmark', 'benchmark'], ['language', 'language'], ['domain', 'domain'],
    ['query_length', 'query length'], ['document_length', 'document length']];
  var ROW_FILTERS = [['family', 'family'], ['variant', 'variant'], ['mode', 'mode'],
    ['dimension', 'dimension'], ['parameters_bucket', 'parameters']];
  var state = { aggregate: data.aggregate, sort: 'rank', desc: false, filters: {}, positions: [] };

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  function fmt(value) { return value == null || isNaN(value) ? '–' : value.toFixed(2); }
  function signed(value) { return value == null || isNaN(value) ? '–' : (value >= 0 ? '+' : '') + value.toFixed(2); }
  function mean(values) { var s = 0; values.forEach(function (v) { s += v; }); return s / values.length; }
  function distinct(values) {
    var seen = {}; var out = [];
    values.forEach(function (v) { var k = v == null ? 'unknown' : String(v); if (!(k in seen)) { seen[k] = 1; out.push(k); } });
    return out.sort(function (a, b) { return isNaN(a) || isNaN(b) ? (a < b ? -1 : a > b ? 1 : 0) : a - b; });
  }

  // Aggregates, as dev.tenbin.eval.aggregate.Aggregate: micro = mean over tasks; macro = mean over
  // benchmarks of (mean over datasets of (mean over the dataset's tasks)).
  function benchmarkScores(tasks, value) {
    var groups = {}; var order = [];
    tasks.forEach(function (t) {
      if (!(t.benchmark in groups)) { groups[t.benchmark] = {}; order.push(t.benchmark); }
      var datasets = groups[t.benchmark];
      (datasets[t.dataset] = datasets[t.dataset] || []).push(value(t));
    });
    var scores = {};
    order.forEach(function (b) {
      scores[b] = mean(Object.keys(groups[b]).map(function (d) { return mean(groups[b][d]); }));
    });
    return scores;
  }
  function aggregate(kind, tasks, value) {
    if (!tasks.length) { return NaN; }
    if (kind === 'micro') { return mean(tasks.map(value)); }
    var scores = benchmarkScores(tasks, value);
    return mean(Object.keys(scores).map(function (b) { return scores[b]; }));
  }

  function taskPasses(task) {
    return TASK_FILTERS.every(function (f) {
      var want = state.filters[f[0]];
      return !want || String(task[f[0]] == null ? 'unknown' : task[f[0]]) === want;
    });
  }
  function rowPasses(row) {
    return ROW_FILTERS.every(function (f) {
      var want = state.filters[f[0]];
      return !want || String(row[f[0]] == null ? 'unknown' : row[f[0]]) === want;
    });
  }
  function findBase(row) {
    for (var i = 0; i < data.rows.length; i++) {
      var r = data.rows[i];
      if (r.system === row.system && r.mode === row.mode && r.variant === 'base') { return r; }
    }
    return null;
  }

  function compute() {
    var kind = state.aggregate;
    var tasks = data.tasks.filter(taskPasses);
    var rows = data.rows.filter(rowPasses).map(function (src) {
      var covered = tasks.filter(function (t) { return t.id in src.scores; });
      var score = function (t) { return src.scores[t.id]; };
      var row = {
        src: src, covered: covered, total: tasks.length,
        complete: tasks.length > 0 && covered.length === tasks.length,
        micro: aggregate('micro', covered, score), macro: aggregate('macro', covered, score),
        bench: benchmarkScores(covered, score),
        tie: aggregate(kind, covered, function (t) { return src.tie_ranges[t.id] || 0; }),
        rank: null, borda: null, delta: null
      };
      var base = findBase(src);
      if (base) {
        var shared = covered.filter(function (t) { return t.id in base.scores; });
        if (shared.length) {
          row.delta = aggregate(kind, shared, function (t) { return src.scores[t.id] - base.scores[t.id]; });
        }
      }
      row.value = row[kind];
      return row;
    }).filter(function (row) { return row.covered.length > 0; });
    var ranked = rows.filter(function (r) { return r.complete; });
    ranked.forEach(function (r) {
      var better = ranked.filter(function (o) { return o.value > r.value + TOLERANCE; }).length;
      r.rank = better + 1;
      r.borda = 0;
      tasks.forEach(function (t) {
        ranked.forEach(function (o) {
          if (o === r) { return; }
          var d = r.src.scores[t.id] - o.src.scores[t.id];
          r.borda += Math.abs(d) <= TOLERANCE ? 0.5 : d > 0 ? 1 : 0;
        });
      });
    });
    ranked.sort(function (a, b) { return a.rank - b.rank; });
    ranked.forEach(function (r, i) {
      var gap = Infinity;
      if (i > 0) { gap = Math.min(gap, Math.abs(ranked[i - 1].value - r.value)); }
      if (i + 1 < ranked.length) { gap = Math.min(gap, Math.abs(ranked[i + 1].value - r.value)); }
      r.tieWarning = isFinite(gap) && r.tie > gap ? tieText(r.tie, gap) : null;
    });
    return { tasks: tasks, rows: rows, ranked: ranked, benchmarks: distinct(tasks.map(function (t) { return t.benchmark; })) };
  }
  function tieText(range, gap) {
    return 'tie range ' + range.toFixed(2) + ' exceeds the gap ' + gap.toFixed(2)
      + ' to the neighbouring row: tie-breaking alone could swap them';
  }
  function tieBadge(text) { return text ? '<span class="tie" title="' + esc(text) + '">⚠</span>' : ''; }
  function pristine() {
    return Object.keys(state.filters).every(function (k) { return !state.filters[k]; });
  }

  var SORTS = {
    rank: function (r) { return r.rank; }, system: function (r) { return r.src.system; },
    variant: function (r) { return r.src.variant; }, mode: function (r) { return r.src.mode; },
    micro: function (r) { return r.micro; }, macro: function (r) { return r.macro; },
    delta: function (r) { return r.delta; }, borda: function (r) { return r.borda; },
    tasks: function (r) { return r.covered.length; }
  };
  function sortKey(name) {
    if (SORTS[name]) { return SORTS[name]; }
    var benchmark = name.replace(/^bench:/, '');
    return function (r) { return r.bench[benchmark]; };
  }
  function sortRows(rows) {
    var key = sortKey(state.sort);
    var sign = state.desc ? -1 : 1;
    return rows.slice().sort(function (a, b) {
      var x = key(a); var y = key(b);
      var xa = x == null || (typeof x === 'number' && isNaN(x)); var ya = y == null || (typeof y === 'number' && isNaN(y));
      if (xa || ya) { return xa === ya ? (b.covered.length - a.covered.length) : xa ? 1 : -1; }
      var c = typeof x === 'string' ? x.localeCompare(y) : x - y;
      return c !== 0 ? sign * c : (b.covered.length - a.covered.length) || (b.value - a.value);
    });
  }

  function renderTable(view) {
    var kind = state.aggregate;
    var showStats = pristine() && kind === data.aggregate;
    // One mode for every row (the usual case): the title says which, and no column repeats it.
    var modes = view.rows.map(function (r) { return r.src.mode; });
    var showMode = modes.some(function (m) { return m !== modes[0]; });
    var head = [['rank', 'Rank'], ['system', 'System'], ['variant', 'Variant']];
    if (showMode) { head.push(['mode', 'Mode']); }
    head.push(['micro', 'Micro'], ['macro', 'Macro']);
    view.benchmarks.forEach(function (b) { head.push(['bench:' + b, b]); });
    head.push(['delta', 'Δ base']);
    var byQueries = data.interval_source === 'queries';
    var resampled = byQueries ? 'the bootstrap over queries' : 'the bootstrap over tasks';
    head.push([null, '95% CI (' + (byQueries ? 'queries' : kind) + ')', 'central 95% of the ' + kind + ' score over the draws of ' + resampled],
      [null, 'Group', 'rows whose 95% CI overlaps the group leader\'s share its letter'],
      [null, 'P(swap next)', 'share of the draws of ' + resampled + ' in which the next-ranked row scores at least as high (a tie counts half)'],
      [null, 'Rank 95%', 'central 95% of the row\'s rank over the same draws, the ranked rows ranked by ' + data.aggregate + ' in each draw (ties share the best rank); ★ tied for first: it includes 1 (ranked first in at least 2.5% of the draws)'],
      ['borda', 'Borda', 'Borda count: per task, a point for every row this one beats and half for a tie, summed over tasks'], ['tasks', 'Tasks']);
    var html = '<thead><tr>' + head.map(function (h) {
      var cls = h[0] && h[0] === state.sort ? ' class="sorted-' + (state.desc ? 'desc' : 'asc') + '"' : '';
      return '<th' + (h[0] ? ' data-sort="' + esc(h[0]) + '"' : '') + (h[2] ? ' title="' + esc(h[2]) + '"' : '') + cls + '>' + esc(h[1]) + '</th>';
    }).join('') + '</tr></thead><tbody>';
    sortRows(view.rows).forEach(function (r) {
      var interval = data.interval_source === 'none' ? null : byQueries ? r.src.query_interval : r.src[kind + '_interval'];
      var delta = r.delta == null ? '–' : '<span class="' + (r.delta > 0 ? 'pos' : r.delta < 0 ? 'neg' : '') + '">' + signed(r.delta) + '</span>';
      html += '<tr class="row' + (r.complete ? '' : ' unranked') + (r.src.variant === 'base' ? ' base' : '')
        + '" data-row="' + esc(r.src.id) + '" data-rank="' + (r.rank == null ? '' : r.rank) + '">'
        + '<td class="num">' + (r.rank == null ? '–' : r.rank) + '</td>'
        + '<td class="system">' + esc(r.src.system) + '</td><td class="variant">' + esc(r.src.variant) + '</td>'
        + (showMode ? '<td>' + esc(r.src.mode) + '</td>' : '')
        + '<td class="num micro">' + fmt(r.micro) + (kind === 'micro' ? tieBadge(r.tieWarning) : '') + '</td>'
        + '<td class="num macro">' + fmt(r.macro) + (kind === 'macro' ? tieBadge(r.tieWarning) : '') + '</td>'
        + view.benchmarks.map(function (b) { return '<td class="num">' + fmt(r.bench[b]) + '</td>'; }).join('')
        + '<td class="num">' + delta + '</td>'
        + '<td class="num">' + (showStats && interval && r.complete ? fmt(interval[0]) + '–' + fmt(interval[1]) : '–') + '</td>'
        + '<td>' + (showStats && r.complete && r.src.statistical_group != null ? esc(r.src.statistical_group) : '–') + '</td>'
        + '<td class="num">' + (showStats && r.complete && r.src.swap_with_next != null ? r.src.swap_with_next.toFixed(2) : '–') + '</td>'
        + '<td class="num">' + (showStats && r.complete && r.src.rank_interval ? r.src.rank_interval[0] + '–' + r.src.rank_interval[1] + (r.src.tied_for_first ? ' <span class="tied-first" title="tied for first: rank 95% includes 1">★</span>' : '') : '–') + '</td>'
        + '<td class="num">' + (r.borda == null ? '–' : r.borda.toFixed(1)) + '</td>'
        + '<td class="num">' + r.covered.length + '/' + r.total + '</td></tr>';
    });
    document.getElementById('leaderboard').innerHTML = html + '</tbody>';
    document.getElementById('row-count').textContent = view.ranked.length + ' of ' + view.rows.length
      + ' rows ranked over ' + view.tasks.length + ' tasks' + (!showMode && modes.length ? '; mode: ' + modes[0] : '')
      + (showStats ? '' : '; bootstrap columns apply to the unfiltered view only');
  }

  // A task's header as HtmlReport.taskHeader writes it: breaks only after - _ / : . or at a lower-to-upper step.
  function taskHeader(t) {
    var name = '';
    for (var i = 0; i < t.id.length; i++) {
      var c = t.id.charAt(i);
      var prev = i > 0 ? t.id.charAt(i - 1) : '';
      if (i > 0 && c !== c.toLowerCase() && c === c.toUpperCase() && prev !== prev.toUpperCase() && prev === prev.toLowerCase()) {
        name += '<wbr>';
      }
      name += esc(c);
      if ('-_/:.'.indexOf(c) >= 0 && i < t.id.length - 1) { name += '<wbr>'; }
    }
    return '<th class="task-name" title="' + esc(t.id + ' (' + t.dataset + ', ' + t.language + (t.domain ? ', ' + t.domain : '') + ')') + '">'
      + name + '</th>';
  }
  function renderTasks(view) {
    var html = '<thead><tr><th>System</th><th>Variant</th><th>Mode</th>' + view.tasks.map(taskHeader).join('') + '</tr></thead><tbody>';
    sortRows(view.rows).forEach(function (r) {
      html += '<tr class="task-row' + (r.complete ? '' : ' unranked') + '" data-row="' + esc(r.src.id) + '"><td>' + esc(r.src.system)
        + '</td><td>' + esc(r.src.variant) + '</td><td>' + esc(r.src.mode) + '</td>';
      view.tasks.forEach(function (t) {
        var score = r.src.scores[t.id];
        if (score == null) { html += '<td class="num">–</td>'; return; }
        var gap = Infinity;
        view.rows.forEach(function (o) {
          var theirs = o.src.scores[t.id];
          if (o !== r && theirs != null) { gap = Math.min(gap, Math.abs(theirs - score)); }
        });
        var range = r.src.tie_ranges[t.id] || 0;
        html += '<td class="num">' + fmt(score) + tieBadge(isFinite(gap) && range > gap ? tieText(range, gap) : null) + '</td>';
      });
      html += '</tr>';
    });
    document.getElementById('tasks').innerHTML = html + '</tbody>';
  }

  // The Pareto chart, as dev.tenbin.eval.leaderboard.ParetoChart draws it.
  function compact(v) {
    var trim = function (x) { return String(Math.round(x * 100) / 100); };
    var m = Math.abs(v);
    return m >= 1e6 ? trim(v / 1e6) + 'M' : m >= 1e3 ? trim(v / 1e3) + 'k' : trim(v);
  }
  function niceStep(raw) {
    var mag = Math.pow(10, Math.floor(Math.log10(raw))); var n = raw / mag;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * mag;
  }
  function linearAxis(min, max) {
    var span = max - min; var pad = span === 0 ? Math.max(1, Math.abs(min) * 0.05) : span * 0.08;
    var step = niceStep((span + 2 * pad) / 5);
    var low = Math.floor((min - pad) / step) * step; var high = Math.ceil((max + pad) / step) * step;
    var ticks = [];
    for (var t = low; t <= high + step / 2; t += step) { ticks.push(Math.round(t / step) * step); }
    return { ticks: ticks, f: function (v) { return (v - low) / (high - low); } };
  }
  function logAxis(min, max) {
    var low = min / 1.5; var high = max * 1.5; var ticks = []; var decades = [];
    for (var k = Math.floor(Math.log10(low)); k <= Math.ceil(Math.log10(high)); k++) {
      [1, 2, 5].forEach(function (m) {
        var t = m * Math.pow(10, k);
        if (t >= low && t <= high) { ticks.push(t); if (m === 1) { decades.push(t); } }
      });
    }
    return { ticks: ticks.length > 8 && decades.length >= 2 ? decades : ticks, log: true,
      f: function (v) { return (Math.log10(v) - Math.log10(low)) / (Math.log10(high) - Math.log10(low)); } };
  }
  function paretoSvg(id, title, costLabel, qualityLabel, raw) {
    var W = 520, H = 340, L = 64, R = 20, T = 30, B = 52, pr = W - R, pb = H - B;
    var svg = '<svg id="' + id + '" class="pareto" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W + ' ' + H
      + '" width="' + W + '" height="' + H + '" role="img" aria-label="' + esc(title) + '">'
      + '<text class="chart-title" x="' + L + '" y="18">' + esc(title) + '</text>';
    if (!raw.length) { return svg + '<text class="empty" x="' + L + '" y="' + H / 2 + '">no ranked row has this cost</text></svg>'; }
    var points = raw.slice().sort(function (a, b) { return a.cost - b.cost || b.quality - a.quality; });
    var best = -Infinity;
    points.forEach(function (p) { p.frontier = p.quality > best; best = Math.max(best, p.quality); });
    var costs = points.map(function (p) { return p.cost; }); var qs = points.map(function (p) { return p.quality; });
    var minC = Math.min.apply(null, costs), maxC = Math.max.apply(null, costs);
    var x = minC > 0 && maxC / minC >= 10 ? logAxis(minC, maxC) : linearAxis(minC, maxC);
    var y = linearAxis(Math.min.apply(null, qs), Math.max.apply(null, qs));
    svg += '<line class="axis" x1="' + L + '" y1="' + pb + '" x2="' + pr + '" y2="' + pb + '"/><line class="axis" x1="' + L
      + '" y1="' + T + '" x2="' + L + '" y2="' + pb + '"/>';
    x.ticks.forEach(function (t) {
      var px = (L + x.f(t) * (pr - L)).toFixed(1);
      svg += '<line class="grid" x1="' + px + '" y1="' + T + '" x2="' + px + '" y2="' + pb + '"/><text class="tick" x="' + px
        + '" y="' + (pb + 16) + '" text-anchor="middle">' + compact(t) + '</text>';
    });
    y.ticks.forEach(function (t) {
      var py = (pb - y.f(t) * (pb - T)).toFixed(1);
      svg += '<line class="grid" x1="' + L + '" y1="' + py + '" x2="' + pr + '" y2="' + py + '"/><text class="tick" x="' + (L - 6)
        + '" y="' + (Number(py) + 4) + '" text-anchor="end">' + compact(t) + '</text>';
    });
    svg += '<text class="axis-label" x="' + (L + pr) / 2 + '" y="' + (H - 10) + '" text-anchor="middle">'
      + esc(costLabel + (x.log ? ' (log scale)' : '')) + '</text><text class="axis-label" transform="translate(16 ' + (T + pb) / 2
      + ') rotate(-90)" text-anchor="middle">' + esc(qualityLabel) + '</text>';
    var line = []; var marks = ''; var placed = []; var centres = [];
    points.forEach(function (p) {
      var rx = L + x.f(p.cost) * (pr - L); var ry = pb - y.f(p.quality) * (pb - T);
      // Overlapping points move apart as ParetoChart moves them (k-th: 6*sqrt(k) px at k golden angles).
      var k = placed.filter(function (o) { return Math.abs(o[0] - rx) <= 2 && Math.abs(o[1] - ry) <= 2; }).length;
      placed.push([rx, ry]);
      var px = rx + (k === 0 ? 0 : 6 * Math.sqrt(k) * Math.cos(k * 2.399963));
      var py = ry + (k === 0 ? 0 : 6 * Math.sqrt(k) * Math.sin(k * 2.399963));
      centres.push([px, py]);
      marks += '<circle class="point' + (p.frontier ? ' frontier' : '') + '" cx="' + px.toFixed(1) + '" cy="' + py.toFixed(1)
        + '" r="' + (p.frontier ? 5 : 4) + '" data-row="' + esc(p.id) + '" data-point="' + centres.length + '"><title>'
        + esc(centres.length + ' ' + p.label + ': quality ' + p.quality.toFixed(2) + ', ' + costLabel + ' ' + compact(p.cost))
        + '</title></circle>';
      if (p.frontier) { line.push(px.toFixed(1) + ',' + py.toFixed(1)); }
    });
    return svg + '<polyline class="frontier-line" points="' + line.join(' ') + '"/>' + marks + numberLabels(centres, L, T, pr, pb)
      + '</svg>';
  }
  // Every point's number, placed as ParetoChart.numberLabels places it.
  function numberLabels(centres, L, T, pr, pb) {
    var out = ''; var boxes = [];
    var directions = [[1, 0], [-1, 0], [0, -1], [0, 1], [0.7, -0.7], [0.7, 0.7], [-0.7, -0.7], [-0.7, 0.7]];
    var inside = function (b) { return !(b[0] < L + 1 || b[2] > pr - 1 || b[1] < T || b[3] > pb); };
    centres.forEach(function (c, i) {
      var text = String(i + 1); var w = 6.5 * text.length + 2; var h = 10;
      var chosen = null, chosenD = 0, fallback = null, fallbackD = 0;
      [7, 14, 22, 32].some(function (d) {
        return directions.some(function (dir) {
          var cx = c[0] + dir[0] * (d + w / 2); var cy = c[1] + dir[1] * (d + h / 2);
          var box = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
          if (fallback === null) { fallback = box; fallbackD = d; }
          if (!inside(box)) { return false; }
          if (!inside(fallback)) { fallback = box; fallbackD = d; }
          var free = boxes.every(function (o) { return !(box[0] < o[2] && o[0] < box[2] && box[1] < o[3] && o[1] < box[3]); })
            && centres.every(function (p) { return !(p[0] + 5 > box[0] && p[0] - 5 < box[2] && p[1] + 5 > box[1] && p[1] - 5 < box[3]); });
          if (free) { chosen = box; chosenD = d; }
          return free;
        });
      });
      if (chosen === null) { chosen = fallback; chosenD = fallbackD; }
      boxes.push(chosen);
      var lx = (chosen[0] + chosen[2]) / 2; var ly = (chosen[1] + chosen[3]) / 2;
      if (chosenD > 10) {
        out += '<line class="leader" x1="' + c[0].toFixed(1) + '" y1="' + c[1].toFixed(1) + '" x2="' + lx.toFixed(1) + '" y2="'
          + ly.toFixed(1) + '"/>';
      }
      out += '<text class="point-label" data-point="' + (i + 1) + '" x="' + lx.toFixed(1) + '" y="' + (ly + 3.5).toFixed(1)
        + '" text-anchor="middle">' + text + '</text>';
    });
    return out;
  }
  // The legend and numbered names, as ParetoChart.key writes them (raw: the points paretoSvg drew).
  function paretoKey(id, raw) {
    var html = '<div class="pareto-legend" id="' + id + '-legend"><span><span class="swatch frontier"></span>on the Pareto frontier'
      + ' (no other row is as good for less)</span><span><span class="swatch dominated"></span>dominated (another row is at'
      + ' least as good for no more)</span><span><span class="swatch line"></span>frontier</span></div>';
    if (!raw.length) { return html; }
    var points = raw.slice().sort(function (a, b) { return a.cost - b.cost || b.quality - a.quality; });
    return html + '<ol class="pareto-key" id="' + id + '-key">' + points.map(function (p, i) {
      return '<li value="' + (i + 1) + '" class="' + (p.frontier ? 'frontier' : 'dominated') + '" data-point="' + (i + 1) + '">'
        + esc(p.label) + '</li>';
    }).join('') + '</ol>';
  }
  // The chart's points as a table, as ParetoChart.table writes it (cheapest first, then best, then label).
  function paretoTable(id, costLabel, qualityLabel, raw) {
    // raw: the points paretoSvg drew, which flagged the frontier on them.
    var points = raw.slice().sort(function (a, b) {
      return a.cost - b.cost || b.quality - a.quality || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0);
    });
    return '<table class="pareto-table" id="' + id + '"><thead><tr><th>system</th><th>' + esc(costLabel) + '</th><th>'
      + esc(qualityLabel) + '</th><th>frontier</th></tr></thead><tbody>' + points.map(function (p) {
        return '<tr><td>' + esc(p.label) + '</td><td class="num">' + compact(p.cost) + '</td><td class="num">'
          + p.quality.toFixed(2) + '</td><td>' + (p.frontier ? '✓' : '') + '</td></tr>';
      }).join('') + '</tbody></table>';
  }
  function renderCharts(view) {
    var quality = data.metric + ' ' + state.aggregate + ' ×100';
    var points = function (cost) {
      return view.ranked.filter(function (r) { return r.src[cost] != null && r.src[cost] > 0; }).map(function (r) {
        return { id: r.src.id, label: r.src.system + '/' + r.src.variant + (r.src.mode === 'retrieval' ? '' : ' (' + r.src.mode + ')'),
          cost: r.src[cost], quality: r.value };
      });
    };
    var bytes = points('stored_bytes_per_document');
    document.getElementById('figure-bytes').innerHTML =
      paretoSvg('chart-bytes', 'Quality against memory', 'stored bytes per document', quality, bytes) + paretoKey('chart-bytes', bytes);
    var latency = points('latency_us');
    document.getElementById('figure-latency').innerHTML =
      paretoSvg('chart-latency', 'Quality against query latency', 'µs per query (encode + search)', quality, latency)
      + paretoKey('chart-latency', latency) + paretoTable('chart-latency-table', 'µs per query (encode + search)', quality, latency);
  }

  function buildControls() {
    var html = '<fieldset id="aggregate-switch"><legend>Aggregate</legend>' + ['macro', 'micro'].map(function (k) {
      return '<label><span><input type="radio" name="aggregate" value="' + k + '"' + (state.aggregate === k ? ' checked' : '')
        + '> ' + k + '</span></label>';
    }).join('') + '</fieldset>';
    var filter = function (f, values) {
      var current = state.filters[f[0]] || '';
      return '<label>' + esc(f[1]) + '<select class="filter" data-filter="' + f[0] + '"><option value="">all</option>'
        + values.map(function (v) { return '<option' + (v === current ? ' selected' : '') + ' value="' + esc(v) + '">' + esc(v) + '</option>'; }).join('')
        + '</select></label>';
    };
    TASK_FILTERS.forEach(function (f) { html += filter(f, distinct(data.tasks.map(function (t) { return t[f[0]]; }))); });
    ROW_FILTERS.forEach(function (f) { html += filter(f, distinct(data.rows.map(function (r) { return r[f[0]]; }))); });
    var controls = document.getElementById('controls');
    controls.innerHTML = html;
    controls.addEventListener('change', function (event) {
      var target = event.target;
      if (target.name === 'aggregate') { state.aggregate = target.value; }
      if (target.dataset && target.dataset.filter) { state.filters[target.dataset.filter] = target.value; }
      render();
    });
    document.getElementById('leaderboard').addEventListener('click', function (event) {
      var th = event.target.closest('th[data-sort]');
      if (!th) { return; }
      var key = th.getAttribute('data-sort');
      state.desc = state.sort === key ? !state.desc : ['micro', 'macro', 'borda', 'delta', 'tasks'].indexOf(key) >= 0 || key.indexOf('bench:') === 0;
      state.sort = key;
      render();
    });
  }

  // State in the URL fragment, e.g. #aggregate=micro&language=de&sort=system&desc=1
  function readHash() {
    location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
      if (!pair) { return; }
      var kv = pair.split('='); var k = decodeURIComponent(kv[0]); var v = decodeURIComponent(kv[1] || '');
      if (k === 'aggregate' && (v === 'micro' || v === 'macro')) { state.aggregate = v; }
      else if (k === 'sort') { state.sort = v; }
      else if (k === 'desc') { state.desc = v === '1'; }
      else if (k.indexOf('pos_') === 0) { state.positions.push(pair); } // the position view's
      else { state.filters[k] = v; }
    });
  }
  function writeHash() {
    var parts = [];
    if (state.aggregate !== data.aggregate) { parts.push('aggregate=' + state.aggregate); }
    Object.keys(state.filters).forEach(function (k) { if (state.filters[k]) { parts.push(encodeURIComponent(k) + '=' + encodeURIComponent(state.filters[k])); } });
    if (state.sort !== 'rank') { parts.push('sort=' + encodeURIComponent(state.sort)); }
    if (state.desc) { parts.push('desc=1'); }
    parts = parts.concat(state.positions);
    try {
      history.replaceState(null, '', parts.length ? '#' + parts.join('&') : location.pathname);
    } catch (ignored) {
      // some browsers refuse history changes on file: pages; the view still works
    }
  }

  function render() {
    var view = compute();
    renderTable(view);
    renderTasks(view);
    renderCharts(view);
    writeHash();
  }

  try {
    readHash();
    buildControls();
    render();
    body.setAttribute('data-render', 'ok');
    // Whether the main table needs a horizontal scroll at this window width (checked by the tests).
    var wrap = document.getElementById('leaderboard').parentNode;
    body.setAttribute('data-main-table-overflow', wrap.scrollWidth > wrap.clientWidth ? 'yes' : 'no');
    body.setAttribute('data-main-table-width', wrap.scrollWidth + ' of ' + wrap.clientWidth + ' px');
  } catch (error) {
    body.setAttribute('data-render-error', String(error && error.message || error));
    throw error;
  }
})();
