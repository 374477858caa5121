// Logs every click on an element with a data-logical name (window.events), so a test sees
// which element a click really reached. Shared by twin-rows.html and css-tabs.html.
window.events = [];
document.addEventListener("click", (event) => {
  const el = event.target.closest ? event.target.closest("[data-logical]") : null;
  if (el) window.events.push([el.dataset.logical, event.type]);
}, true);
