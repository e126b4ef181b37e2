// The position view of the leaderboard (PositionsHtml): filters by family and variant, sorting by
// any PSI column, slope or reference correlation (missing values last), and the bin-profile lines
// of the ticked rows. Marks <body data-positions="ok"> when done.
(function () {
  'use strict';
  var body = document.body;
  var data = JSON.parse(document.getElementById('positions-data').textContent);
  var table = document.getElementById('positions');
  var tbody = table.tBodies[0];
  var rowsByIndex = {};
  Array.prototype.forEach.call(tbody.rows, function (tr) { rowsByIndex[tr.getAttribute('data-pos-row')] = tr; });
  var state = { family: '', variant: '', sort: null, desc: false };
  var COLOURS = ['#1f77b4', '#d9480f', '#2b8a3e', '#862e9c', '#e67700', '#0b7285', '#c2255c', '#5c940d'];
  var SVG = 'http://www.w3.org/2000/svg';

  function distinct(key) {
    var seen = {}; var out = [];
    data.forEach(function (d) { if (!(d[key] in seen)) { seen[d[key]] = 1; out.push(d[key]); } });
    return out.sort();
  }
  function select(key, label) {
    var wrap = document.createElement('label');
    wrap.textContent = label;
    var s = document.createElement('select');
    s.setAttribute('data-pfilter', key);
    var all = document.createElement('option'); all.value = ''; all.textContent = 'all'; s.appendChild(all);
    distinct(key).forEach(function (v) { var o = document.createElement('option'); o.value = v; o.textContent = v; s.appendChild(o); });
    s.addEventListener('change', function () { state[key] = s.value; render(); });
    wrap.appendChild(s);
    return wrap;
  }
  function visible(d) {
    return (!state.family || d.family === state.family) && (!state.variant || d.variant === state.variant);
  }
  function sortValue(d, key) {
    if (key === 'task' || key === 'system' || key === 'variant') { return d[key]; }
    if (key === 'slope' || key === 'ref') { return d[key]; }
    return d.psi[Number(key.substring(3))];
  }
  function ordered() {
    var rows = data.slice();
    if (state.sort) {
      rows.sort(function (a, b) {
        var x = sortValue(a, state.sort); var y = sortValue(b, state.sort);
        if (x == null && y == null) { return a.row - b.row; }
        if (x == null) { return 1; }
        if (y == null) { return -1; }
        var c = x < y ? -1 : x > y ? 1 : 0;
        return (state.desc ? -c : c) || a.row - b.row;
      });
    }
    return rows;
  }
  function drawProfiles() {
    var svg = document.getElementById('position-profiles');
    var group = document.getElementById('profile-lines');
    while (group.firstChild) { group.removeChild(group.firstChild); }
    var width = Number(svg.getAttribute('width')); var height = Number(svg.getAttribute('height'));
    var left = 44, right = 12, top = 12, bottom = 34;
    var w = width - left - right; var h = height - top - bottom;
    var colour = 0;
    var legend = document.getElementById('profile-legend');
    while (legend.firstChild) { legend.removeChild(legend.firstChild); }
    ordered().forEach(function (d) {
      var box = tbody.querySelector('input.profile-toggle[data-pos-row="' + d.row + '"]');
      if (!box || !box.checked || !visible(d)) { return; }
      var points = [];
      d.profile.forEach(function (v, bin) {
        if (v != null) { points.push((left + w * (bin + 0.5) / d.profile.length).toFixed(1) + ',' + (top + h - h * v).toFixed(1)); }
      });
      var line = document.createElementNS(SVG, 'polyline');
      line.setAttribute('class', 'profile');
      line.setAttribute('data-pos-row', d.row);
      line.setAttribute('fill', 'none');
      line.setAttribute('stroke', COLOURS[colour++ % COLOURS.length]);
      line.setAttribute('stroke-width', '1.8');
      line.setAttribute('points', points.join(' '));
      var title = document.createElementNS(SVG, 'title');
      title.textContent = d.task + ' ' + d.system + '/' + d.variant + '/' + d.mode;
      line.appendChild(title);
      group.appendChild(line);
      var item = document.createElement('li');
      var swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = line.getAttribute('stroke');
      item.appendChild(swatch);
      item.appendChild(document.createTextNode(title.textContent));
      legend.appendChild(item);
      var box2 = rowsByIndex[d.row];
      if (box2) { box2.style.borderLeft = '4px solid ' + line.getAttribute('stroke'); }
    });
  }
  function render() {
    ordered().forEach(function (d) {
      var tr = rowsByIndex[d.row];
      tr.style.display = visible(d) ? '' : 'none';
      tr.style.borderLeft = '';
      tbody.appendChild(tr);
      var figure = document.querySelector('#heatmaps figure[data-pos-row="' + d.row + '"]');
      if (figure) { figure.style.display = visible(d) ? '' : 'none'; }
    });
    Array.prototype.forEach.call(table.tHead.querySelectorAll('th[data-psort]'), function (th) {
      th.classList.remove('sorted-asc', 'sorted-desc');
      if (th.getAttribute('data-psort') === state.sort) { th.classList.add(state.desc ? 'sorted-desc' : 'sorted-asc'); }
    });
    drawProfiles();
  }

  var controls = document.getElementById('position-controls');
  controls.appendChild(select('family', 'family'));
  controls.appendChild(select('variant', 'variant'));
  Array.prototype.forEach.call(table.tHead.querySelectorAll('th[data-psort]'), function (th) {
    th.addEventListener('click', function () {
      var key = th.getAttribute('data-psort');
      state.desc = state.sort === key ? !state.desc : false;
      state.sort = key;
      render();
    });
  });
  tbody.addEventListener('change', function (event) {
    if (event.target.classList.contains('profile-toggle')) { drawProfiles(); }
  });
  var hash = new URLSearchParams(location.hash.replace(/^#/, ''));
  ['family', 'variant'].forEach(function (key) {
    if (hash.get('pos_' + key)) {
      state[key] = hash.get('pos_' + key);
      controls.querySelector('select[data-pfilter="' + key + '"]').value = state[key];
    }
  });
  if (hash.get('pos_sort')) { state.sort = hash.get('pos_sort'); state.desc = hash.get('pos_desc') === '1'; }
  render();
  body.setAttribute('data-positions', 'ok');
})();
