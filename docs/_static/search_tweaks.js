// The search page's ranking and summaries (loaded after Sphinx's searchtools.js).
// * A page whose title holds a searched word comes first, then the glossary's entry for it;
//   Sphinx's own scores otherwise tie, and ties sort alphabetically.
// * A summary is the lesson's text: not the breadcrumbs, nor the "What ran this page" box.
// * Opened from disk (the offline zip), a summary cannot be fetched (file:// forbids it): the
//   results show without one, and without an error in the console.
(() => {
  if (typeof Scorer === "undefined" || typeof Search === "undefined") return;
  const words = () =>
    (new URLSearchParams(window.location.search).get("q") || "")
      .toLowerCase()
      .split(/\s+/)
      .filter((word) => word.length > 0);
  const sphinxScore = Scorer.score || ((result) => result[4]);  // Sphinx ships none
  Scorer.score = (result) => {
    const [docname, title, anchor] = result;
    let boost = 0;
    const heading = (title || "").toLowerCase();
    if (words().some((word) => heading.includes(word))) boost += anchor ? 20 : 40;
    if (docname === "glossary" && anchor) boost += 30;
    return sphinxScore(result) + boost;
  };
  const toText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    page
      .querySelectorAll(".bd-breadcrumbs, .sbs-provenance, .sbs-lesson-nav, nav")
      .forEach((element) => element.remove());
    return toText(page.documentElement.outerHTML, anchor);
  };
  if (window.location.protocol === "file:") DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
})();
