//! The core's layers (see the diagram in `src/lib.rs`): every module may use only modules
//! of its own layer or below, and no two modules use each other, directly or through
//! others. Read from the sources: `use crate::…` trees and `crate::…` paths outside the
//! `#[cfg(test)] mod tests` at the end of a file and outside comments. The modules are
//! private (`mod x;` in `src/lib.rs`, the API is its re-exports): inside the crate a module
//! names the module it uses, never a root re-export, so no use escapes the check.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::Path,
};

/// The layers, lowest first; a module belongs to the first entry that is it or its parent.
const LAYERS: &[&[&str]] = &[
    // Values: UCI, games, evaluations, the shakmaty glue.
    &["uci", "game", "eval", "chess"],
    // Getting games in and engines run: import, book, plan, the engine contract, session,
    // the engine pools' rules.
    &["pgn", "book", "plan", "engine", "session", "pool_policy"],
    // The record the models read.
    &["record"],
    // The models, each returning its summary.
    &["accuracy", "stats", "model"],
    // The summaries.
    &["report"],
    // Their assembly.
    &["analysis"],
    // Every text output.
    &["render"],
    // The browser bindings.
    &["wasm"],
];

/// Every module of the library (`a::b` for `src/a/b.rs` and `src/a/b/mod.rs`) and its
/// source, without its test module and comments.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if prefix.is_empty() && name == "cli" {
                    continue; // the binary's modules, not the library's
                }
                let mut p = prefix.to_vec();
                p.push(name);
                walk(&path, &p, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let mut p = prefix.to_vec();
                if name != "mod" {
                    p.push(name);
                }
                if p.is_empty() || p == ["lib"] || p == ["main"] {
                    continue;
                }
                let text = fs::read_to_string(&path).unwrap();
                out.insert(p.join("::"), strip(&text));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &[],
        &mut out,
    );
    out
}

/// The source without its trailing test module and `//` comments.
fn strip(text: &str) -> String {
    let code = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |i| &text[..i]);
    code.lines()
        .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths of a use tree (`a::{b, c::{d, e}}` → `a::b`, `a::c::d`, `a::c::e`).
fn flatten(tree: &str) -> Vec<String> {
    fn list(s: &[char], i: &mut usize, prefix: &str, out: &mut Vec<String>) {
        let mut cur = String::new();
        while *i < s.len() {
            let c = s[*i];
            *i += 1;
            match c {
                '{' => {
                    list(s, i, &format!("{prefix}{}", cur.trim()), out);
                    cur.clear();
                }
                '}' => break,
                ',' => {
                    if !cur.trim().is_empty() {
                        out.push(format!("{prefix}{}", cur.trim()));
                    }
                    cur.clear();
                }
                c if c.is_whitespace() => {}
                c => cur.push(c),
            }
        }
        if !cur.trim().is_empty() {
            out.push(format!("{prefix}{}", cur.trim()));
        }
    }
    let chars: Vec<char> = tree.chars().collect();
    let mut out = Vec::new();
    list(&chars, &mut 0, "", &mut out);
    out
}

/// The `crate::…` paths a module's code names (use trees flattened).
fn crate_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let is_use = rest[..i].trim_end().ends_with("use");
        if is_use {
            let end = after.find(';').unwrap_or(after.len());
            paths.extend(flatten(&after[..end]));
            rest = &after[end..];
        } else {
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(after.len());
            paths.push(after[..end].to_owned());
            rest = &after[end..];
        }
    }
    paths
}

/// The modules each module uses.
fn graph(modules: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let resolve = |path: &str| -> Option<String> {
        let segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        (1..=segs.len())
            .rev()
            .map(|n| segs[..n].join("::"))
            .find(|m| modules.contains_key(m))
    };
    let mut edges = BTreeMap::new();
    for (name, code) in modules {
        let paths = crate_paths(code);
        let used: BTreeSet<String> = paths
            .iter()
            .filter_map(|p| resolve(p))
            .filter(|t| {
                t != name
                    && !name.starts_with(&format!("{t}::"))
                    && !t.starts_with(&format!("{name}::"))
            })
            .collect();
        edges.insert(name.clone(), used);
    }
    edges
}

/// The `crate::…` paths that name no module: a root re-export (`crate::Report`) or a
/// facade (`crate::fit::…`). Inside the crate a module names the module that defines what
/// it uses, so that every use is seen by the layer check.
fn unresolved(modules: &BTreeMap<String, String>) -> Vec<String> {
    let tops: BTreeSet<&str> = modules
        .keys()
        .map(|m| m.split("::").next().unwrap())
        .collect();
    let mut out = Vec::new();
    for (name, code) in modules {
        for p in crate_paths(code) {
            if !tops.contains(p.split("::").next().unwrap()) {
                out.push(format!("{name} uses crate::{p}"));
            }
        }
    }
    out
}

/// The modules `src/lib.rs` declares (`mod x;`, `pub mod x;`), public or private.
fn declared() -> BTreeSet<String> {
    let lib = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| {
            let l = l.trim().strip_prefix("pub ").unwrap_or(l.trim());
            l.strip_prefix("mod ")?.strip_suffix(';').map(str::to_owned)
        })
        .collect()
}

fn layer(module: &str) -> usize {
    let top = module.split("::").next().unwrap();
    LAYERS
        .iter()
        .position(|l| l.contains(&top))
        .unwrap_or_else(|| panic!("module {module} is in no layer of tests/layers.rs"))
}

#[test]
fn every_module_uses_only_its_layer_and_below() {
    let modules = modules();
    assert!(modules.contains_key("record") && modules.contains_key("render::pgn"));
    let mut wrong = Vec::new();
    for (from, tos) in graph(&modules) {
        for to in tos {
            if layer(&to) > layer(&from) {
                wrong.push(format!("{from} uses {to}"));
            }
        }
    }
    assert!(wrong.is_empty(), "upward uses: {wrong:#?}");
}

#[test]
fn every_declared_module_is_in_a_layer_and_named_by_its_own_path() {
    let in_layers: BTreeSet<String> = LAYERS
        .iter()
        .flat_map(|l| l.iter().map(|m| m.to_string()))
        .collect();
    assert_eq!(declared(), in_layers, "src/lib.rs's modules against LAYERS");
    let wrong = unresolved(&modules());
    assert!(
        wrong.is_empty(),
        "uses through a re-export or facade, not the module: {wrong:#?}"
    );
}

#[test]
fn no_module_cycles() {
    let edges = graph(&modules());
    // A cycle exists when some module reaches itself.
    let mut cycles = Vec::new();
    for start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        while let Some((m, path)) = stack.pop() {
            for next in &edges[&m] {
                if next == start {
                    cycles.push(format!("{} -> {start}", path.join(" -> ")));
                } else if seen.insert(next.clone()) {
                    let mut p = path.clone();
                    p.push(next.clone());
                    stack.push((next.clone(), p));
                }
            }
        }
    }
    assert!(cycles.is_empty(), "module cycles: {cycles:#?}");
}

#[test]
fn the_checker_sees_uses_and_cycles() {
    // Guards the guard: a use tree is flattened, and a planted cycle is found.
    assert_eq!(
        flatten("a::{b, c::{d, e}}, f"),
        ["a::b", "a::c::d", "a::c::e", "f"]
    );
    let mut m = BTreeMap::new();
    m.insert("x".to_owned(), "use crate::{y::Thing, z};".to_owned());
    m.insert("y".to_owned(), "fn f() { crate::x::g(); }".to_owned());
    m.insert("z".to_owned(), String::new());
    let g = graph(&m);
    assert_eq!(g["x"], BTreeSet::from(["y".to_owned(), "z".to_owned()]));
    assert!(g["y"].contains("x"));
    // A use through a root re-export names no module, so it is reported.
    m.insert("w".to_owned(), "use crate::{Report, z};".to_owned());
    assert_eq!(unresolved(&m), ["w uses crate::Report"]);
}
