// The page's static markup, shared by index.html and embed.html (constant text only:
// nothing from the user's input is ever put into HTML).
export const SHELL = `
<header>
  <h1>fairsight</h1>
  <p>Chess fair-play analysis that runs entirely in your browser: Stockfish analyses every
  move on this machine, and no game ever leaves it.</p>
</header>
<main>
<section id="input" aria-label="Input">
  <div id="drop" class="dropzone">
    Drop a PGN file here, or <label class="file">pick a file
    <input type="file" id="file" accept=".pgn,.txt,text/plain,application/x-chess-pgn" multiple></label>
  </div>
  <label for="pgn" class="visually-hidden">PGN text</label>
  <textarea id="pgn" rows="6" spellcheck="false" placeholder="…or paste one or many games in PGN here"></textarea>
  <div class="actions">
    <button id="again" type="button">Analyse another game</button>
    <button id="sample" type="button" title="Six blitz games of a club: Ada plays her own moves, Eve has an engine's help">Analyse the sample games</button>
    <button id="analyse" type="button" class="primary">Analyse</button>
    <button id="cancel" type="button" disabled>Cancel</button>
    <label class="file">Open a saved report (JSON)
    <input type="file" id="open-report" accept=".json,application/json"></label>
  </div>
  <details class="settings" id="settings">
    <summary>Settings</summary>
    <div class="settings-grid">
      <label>Mode
        <select id="mode">
          <option value="review">review: lines and accuracy per move</option>
          <option value="screening">screening: Regan's zig-zag protocol (slower)</option>
        </select>
      </label>
      <label class="screening-only">Single-line depth d <input id="slm-depth" type="number" min="1" max="60" value="16"></label>
      <label class="screening-only">Match bits from depth dmin <input id="min-depth" type="number" min="1" max="60" value="11"></label>
      <label>Search limit
        <select id="limit-kind"><option value="depth">depth</option><option value="nodes">nodes</option></select>
      </label>
      <label>Value <input id="limit-value" type="number" min="1" value="14"></label>
      <label>Lines (MultiPV; screening: L) <input id="lines" type="number" min="1" max="10" value="4"></label>
      <label>Workers <input id="workers" type="number" min="1" max="16" value="1"></label>
      <label><input id="strong" type="checkbox"> Strong engine (full network, ~99 MB download)</label>
      <label>Opening book (book moves are not analysed or counted)
        <select id="book-kind">
          <option value="builtin">built-in: popular lichess positions and named openings</option>
          <option value="none">none</option>
          <option value="file">my Polyglot book (.bin)…</option>
        </select>
      </label>
      <label>Ratings for the screening, one <code>NAME=ELO</code> per line (else the Elo tags)
        <textarea id="ratings" rows="2" spellcheck="false" placeholder="Carlsen, Magnus=2850"></textarea>
      </label>
      <button id="apply-ratings" type="button" disabled>Apply the ratings to the report shown</button>
      <label class="file hidden" id="book-file-label">Choose a Polyglot book
      <input type="file" id="book-file" accept=".bin,application/octet-stream"></label>
      <span><button id="clear-cache" type="button">Clear cached analyses</button> <span id="cache-info"></span></span>
    </div>
  </details>
  <p id="calibration-note" class="calibration-note"></p>
</section>
<section id="status" class="progress hidden" aria-live="polite">
  <progress id="bar" value="0" max="1"></progress>
  <span id="progress-text"></span>
</section>
<section id="messages" class="errors" aria-live="polite"></section>
<section id="results" class="hidden">
  <h2 id="summary-title">Summary</h2>
  <p class="summary-note">A screen, not a proof: the level is the answer, and a flag means look at the games, never that someone cheated.</p>
  <div id="summary"></div>
  <div class="exports">
    <button id="export-json" type="button">Export JSON report</button>
    <button id="export-pgn" type="button">Export annotated PGN</button>
    <button id="export-log" type="button" class="hidden">Download Regan log</button>
    <button id="export-results" type="button" class="hidden">Download screening results</button>
    <span id="export-wait" class="export-wait hidden">The exports are ready when the analysis ends (Cancel keeps what is done).</span>
    <span id="engine-info"></span>
  </div>
  <h2 id="games-title">Games</h2>
  <div class="games-tools">
    <label for="player-filter">Player</label>
    <input id="player-filter" type="search" list="player-names" autocomplete="off" spellcheck="false"
      placeholder="all players" aria-describedby="games-count">
    <datalist id="player-names"></datalist>
    <span id="games-count" role="status"></span>
  </div>
  <div class="master-detail">
    <div id="games" class="master"></div>
    <section id="game-pane" class="detail" aria-labelledby="game-title">
      <h2 id="game-title">Game</h2>
      <div id="game"></div>
    </section>
  </div>
  <h2>Move map</h2>
  <div id="move-map"></div>
  <h2>Players</h2>
  <div id="players"></div>
</section>
</main>
<footer>
  fairsight · GPL-3.0-or-later · engine: Stockfish 19 (GPL) via stockfish.js · board: chessground (GPL)
  · <span id="version"></span>
</footer>
`;

/** Fills the page body with the shell. */
export function buildShell(root) {
  root.innerHTML = SHELL;
}
