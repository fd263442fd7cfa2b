/* Page self-check, shared by every polsim page: script errors,
   console.error calls and blocked loads (the page must work offline) are
   written into #page-errors; on load, each function in window.pageChecks
   runs (a page adds its own checks, e.g. "every plot was drawn"), then
   body[data-checked] says "clean" or "errors". Tests read these from the DOM. */
(function () {
  var errors = [];
  function record(message) {
    errors.push(String(message));
    var box = document.getElementById("page-errors");
    if (box) { box.textContent = errors.join("\n"); box.hidden = false; }
  }
  window.addEventListener("error", function (e) {
    if (e.target && e.target !== window && e.target.tagName) {
      record("failed to load " + e.target.tagName.toLowerCase() + " " + (e.target.src || e.target.href || ""));
    } else {
      record("error: " + e.message + " at " + e.filename + ":" + e.lineno);
    }
  }, true);
  window.addEventListener("unhandledrejection", function (e) { record("unhandled rejection: " + e.reason); });
  document.addEventListener("securitypolicyviolation", function (e) { record("blocked " + e.blockedURI); });
  var consoleError = console.error;
  console.error = function () {
    record("console.error: " + Array.prototype.join.call(arguments, " "));
    return consoleError.apply(console, arguments);
  };
  window.pageErrors = errors;
  window.addEventListener("load", function () {
    (window.pageChecks || []).forEach(function (check) { check(record); });
    document.body.setAttribute("data-checked", errors.length ? "errors" : "clean");
  });
})();
