// conv_tasks web view: the two small things htmx does not do (closing the resource drawer,
// copying a CLI command). Served as it is: no build step. The pages work without it.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var close = event.target.closest("[data-close-drawer]");
    var drawer = document.getElementById("drawer");
    if (close && drawer) {
      event.preventDefault();
      drawer.innerHTML = "";
      return;
    }
    var copy = event.target.closest("[data-copy]");
    if (copy && navigator.clipboard) {
      navigator.clipboard.writeText(copy.getAttribute("data-copy")).then(function () {
        copy.textContent = "copied";
        setTimeout(function () { copy.textContent = "copy"; }, 1500);
      });
    }
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("button[data-copy]").forEach(function (button) {
      button.hidden = false;
    });
  });
})();
