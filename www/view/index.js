// fairsight: rendering of a report (schema 1) into the page. GPL-3.0-or-later.
//
// The views' public entry points, one file per section: dom.js (element helpers),
// format.js (values as text), games.js (the game list), board.js (one game: board and
// moves), move.js (the selected move's panel), charts.js (the SVG charts), movemap.js
// (the move map) and players.js (summary and player panels). Everything is built with
// DOM APIs: text from the report (PGN tags, names, comments, error messages) only ever
// reaches the page through textContent or attribute values with fixed attribute names,
// never as markup. No chess logic here: the report already carries SAN, best moves and
// judgements; squares for arrows come from the UCI strings.

export { renderGame } from './board.js';
export { formatScore } from './format.js';
export { renderGameList, selectInGameList } from './games.js';
export { renderMoveMap, selectInMoveMap } from './movemap.js';
export { PLAYER_PAGE, SUMMARY_PAGE, renderPlayers, renderSummary } from './players.js';
