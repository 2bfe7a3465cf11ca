// The hosted payment page's behaviour: countdown, live status and deposits seen on chain (polling the page's
// small status route), copy buttons and, in sandbox only, the "simulate payment" button. When the payer's next
// step changes (paid, seen on chain, less remaining) the server renders the new step: its amounts and QR code
// are exact decimals drawn on the server, so nothing is computed with them here.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('pay-data').textContent);
  var messages = data.messages;
  var POLL_MS = 2000;
  var skewMs = Date.parse(data.serverNow) - Date.now();
  var statusBox = document.getElementById('status');
  var statusText = document.getElementById('status-text');
  var pendingList = document.getElementById('pending');
  var countdown = document.getElementById('countdown');
  var simulateButton = document.getElementById('simulate');
  var feedback = document.getElementById('copy-feedback');
  var current = data.status;
  var shownStep = stepKey(current);

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, name) { return values[name] || ''; });
  }

  function isOpen(state) { return state === 'waiting' || state === 'partial'; }

  // The server's nextStep (src/use-cases/payment-pages.ts).
  function stepOf(status) {
    if (status.state === 'completed') return 'receipt';
    if (status.state === 'expired') return 'expired';
    return status.pending_deposits.length > 0 ? 'confirming' : 'pay';
  }

  // A new credit changes what the card asks for (what remains), or what a receipt or an expired page shows.
  function stepKey(status) {
    return stepOf(status) + ' ' + status.amount_received;
  }

  // This page again, as the server renders it now; only its next-step section is taken, so focus, the live
  // region and the countdown stay as they are.
  function refreshStep() {
    fetch(location.href, { cache: 'no-store' })
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (text) {
        var fresh = text && new DOMParser().parseFromString(text, 'text/html').getElementById('next-step');
        if (!fresh) throw new Error('no next step in the page');
        document.getElementById('next-step').replaceWith(document.adoptNode(fresh));
      })
      .catch(function () { shownStep = null; /* the next poll tries again */ });
  }

  function render(status) {
    current = status;
    var values = { received: status.amount_received, remaining: status.amount_remaining, currency: status.currency };
    var template = status.state === 'expired' && status.amount_received !== '0' ? messages.expiredWithCredit
      : stepOf(status) === 'confirming' ? messages.confirming : messages[status.state];
    if (statusBox.getAttribute('data-state') !== status.state || statusText.textContent !== fill(template, values)) {
      statusBox.setAttribute('data-state', status.state);
      statusText.textContent = fill(template, values);
    }
    renderPending(status.pending_deposits);
    var paying = stepOf(status) === 'pay';
    countdown.parentElement.hidden = !paying;
    if (simulateButton) simulateButton.hidden = !paying;
    if (stepKey(status) !== shownStep) {
      shownStep = stepKey(status);
      refreshStep();
    }
  }

  // Deposits seen on chain, not confirmed yet: one line each, rewritten only when a line changed (the list is
  // inside the live region, so every rewrite is announced).
  function renderPending(deposits) {
    var lines = deposits.map(function (d) {
      return fill(messages.pendingDeposit, {
        amount: d.amount, asset: d.asset, network: d.network_name,
        confirmations: String(d.confirmations), required: String(d.confirmations_required),
      });
    });
    var shown = Array.prototype.map.call(pendingList.children, function (li) { return li.textContent; });
    if (shown.join('\n') === lines.join('\n')) return;
    pendingList.textContent = '';
    lines.forEach(function (line) {
      var li = document.createElement('li');
      li.textContent = line;
      pendingList.appendChild(li);
    });
    pendingList.hidden = lines.length === 0;
  }

  function pad(n) { return n < 10 ? '0' + n : String(n); }

  function tick() {
    var left = Math.max(0, Math.floor((Date.parse(current.expires_at) - (Date.now() + skewMs)) / 1000));
    var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
    countdown.textContent = (h > 0 ? h + ':' + pad(m) : String(m)) + ':' + pad(s);
  }

  // A deposit still confirming is followed past completion or expiry, until it is credited.
  function poll() {
    if (!isOpen(current.state) && current.pending_deposits.length === 0) return;
    fetch(data.statusUrl, { headers: { accept: 'application/json' }, cache: 'no-store' })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (status) { if (status) render(status); })
      .catch(function () { /* the next poll tries again */ })
      .then(function () { setTimeout(poll, POLL_MS); });
  }

  // Delegated: the copy buttons come and go with the next-step section.
  document.addEventListener('click', function (event) {
    var button = event.target.closest('button.copy');
    if (!button) return;
    var text = document.getElementById(button.getAttribute('data-copy')).textContent;
    var done = function () { feedback.textContent = button.getAttribute('data-copied'); };
    var failed = function () { feedback.textContent = messages.copyFailed; };
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, failed);
    else failed();
  });

  if (simulateButton && data.simulateUrl) {
    simulateButton.addEventListener('click', function () {
      simulateButton.disabled = true;
      simulateButton.textContent = messages.simulating;
      fetch(data.simulateUrl, { method: 'POST' })
        .then(function (res) { if (!res.ok) throw new Error(String(res.status)); return res.json(); })
        .then(render, function () { feedback.textContent = messages.simulateFailed; })
        .then(function () { simulateButton.disabled = false; simulateButton.textContent = messages.simulate; });
    });
  }

  tick();
  setInterval(tick, 1000);
  setTimeout(poll, POLL_MS);
})();
