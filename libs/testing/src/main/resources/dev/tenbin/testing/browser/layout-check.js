// Layout checks the browser tests append to a page or run in it: once it has loaded (at once when it
// already has, as in a driven browser), writes the problems found to <body data-layout="ok"> or
// <body data-layout-problems="problem | problem ...">.
(function (check) {
  if (document.readyState === 'complete') { check(); } else { window.addEventListener('load', check); }
})(function () {
  document.body.removeAttribute('data-layout');
  document.body.removeAttribute('data-layout-problems');
  var problems = [];
  var short = function (text) { text = String(text).replace(/\s+/g, ' ').trim(); return text.length > 60 ? text.slice(0, 60) + '…' : text; };
  var overlap = function (a, b) {
    return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  };
  // 1. the page needs no horizontal scroll (tables scroll inside their .table-wrap)
  var root = document.documentElement;
  if (root.scrollWidth > window.innerWidth + 1) {
    problems.push('page wider than the window: ' + root.scrollWidth + ' of ' + window.innerWidth + ' px');
  }
  // ... and the main table fits without its own scroll
  var main = document.getElementById('leaderboard');
  if (main && main.parentNode.scrollWidth > main.parentNode.clientWidth + 1) {
    problems.push('the main table needs a scroll: ' + main.parentNode.scrollWidth + ' of ' + main.parentNode.clientWidth + ' px');
  }
  // 2. no SVG text leaves its svg
  Array.prototype.forEach.call(document.querySelectorAll('svg'), function (svg) {
    var box = svg.getBoundingClientRect();
    Array.prototype.forEach.call(svg.querySelectorAll('text'), function (text) {
      var r = text.getBoundingClientRect();
      if (r.width === 0) { return; }
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        problems.push('text outside its svg' + (svg.id ? ' #' + svg.id : '') + ': "' + short(text.textContent) + '"');
      }
    });
  });
  // 3. legends, keys and captions show all of their text
  Array.prototype.forEach.call(document.querySelectorAll(
    '.legend, .legend *, .pareto-legend, .pareto-legend *, .pareto-key, .pareto-key *, figcaption, figcaption *, th, td'), function (el) {
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0 && getComputedStyle(el).overflowX !== 'visible') {
      problems.push('clipped: ' + el.tagName.toLowerCase() + ' "' + short(el.textContent) + '"');
    }
  });
  Array.prototype.forEach.call(document.querySelectorAll('.legend, .pareto-legend, .pareto-key, figcaption'), function (el) {
    var parent = el.parentElement.getBoundingClientRect(); var r = el.getBoundingClientRect();
    if (r.right > parent.right + 1 || r.left < parent.left - 1) {
      problems.push('legend outside its container: "' + short(el.textContent) + '"');
    }
  });
  // 4. every Pareto chart has a legend, and every point a number that the key names
  Array.prototype.forEach.call(document.querySelectorAll('svg.pareto'), function (svg) {
    var circles = svg.querySelectorAll('circle.point');
    if (!circles.length) { return; }
    var legend = document.getElementById(svg.id + '-legend');
    if (!legend || !/frontier/.test(legend.textContent) || !/dominated/.test(legend.textContent)) {
      problems.push('no legend for the chart #' + svg.id);
    }
    var key = document.getElementById(svg.id + '-key');
    var labels = svg.querySelectorAll('text.point-label');
    Array.prototype.forEach.call(circles, function (circle) {
      var n = circle.getAttribute('data-point');
      var label = n && svg.querySelector('text.point-label[data-point="' + n + '"]');
      var named = n && key && key.querySelector('li[data-point="' + n + '"]');
      if (!label || !named || label.textContent !== n) {
        problems.push('unlabelled point in #' + svg.id + ': ' + short(circle.textContent));
      }
    });
    for (var i = 0; i < labels.length; i++) {
      for (var j = i + 1; j < labels.length; j++) {
        if (overlap(labels[i].getBoundingClientRect(), labels[j].getBoundingClientRect())) {
          problems.push('point numbers overlap in #' + svg.id + ': ' + labels[i].textContent + ' and ' + labels[j].textContent);
        }
      }
    }
  });
  // 5. a header, or a cell of the main table, breaks between words, after a separator (- _ / : . –)
  // or at a <wbr>, never inside a word
  Array.prototype.forEach.call(document.querySelectorAll('th, #leaderboard td'), function (th) {
    var what = th.tagName === 'TH' ? 'header' : 'cell';
    var walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      node.textContent.split(/(\s+|[-_\/:.\u2013])/).reduce(function (offset, word) {
        if (word.trim()) {
          var range = document.createRange();
          range.setStart(node, offset); range.setEnd(node, offset + word.length);
          var tops = {};
          Array.prototype.forEach.call(range.getClientRects(), function (r) { if (r.width > 0) { tops[Math.round(r.top)] = 1; } });
          if (Object.keys(tops).length > 1) { problems.push(what + ' broken inside "' + short(word) + '"'); }
        }
        return offset + word.length;
      }, 0);
    }
  });
  if (problems.length) {
    document.body.setAttribute('data-layout-problems', problems.join(' | '));
  } else {
    document.body.setAttribute('data-layout', 'ok');
  }
});
