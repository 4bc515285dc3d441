//! The architecture check: the workspace's crate layers, read from `cargo metadata`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Context as _;
use cargo_metadata::{DependencyKind, MetadataCommand};

use crate::Check;

/// Leaves are useful alone and know nothing of the engine.
const LEAVES: &[&str] = &["jit-bash", "jit-imports"];
/// The engine, which declares the traits plug-ins implement.
const CORE: &str = "jit-core";
/// Plug-ins implement `jit-core`'s traits and register with its `inventory`.
const PLUGINS: &[&str] = &["jit-git", "jit-tools"];
/// Binaries and test crates, which may use anything and which nothing uses
/// (`bench-tree`, the benchmark fixtures, only as a dev-dependency).
const TOP: &[&str] = &["bench-tree", "jit-cli", "tests", "xtask"];

/// External crates that must stay out of some workspace crates' builds, and why.
const CONFINED: &[(&str, &[&str], &str)] = &[(
    "gix",
    &["jit-bash", "jit-core", "jit-imports", "jit-tools"],
    "a harness author who takes only these should not compile git; jit-core takes change \
     signals through its `ChangeSource` trait, which jit-git implements",
)];

/// What the checks need to know about the workspace's crates.
#[derive(Debug, Default)]
struct Graph {
    /// Each workspace crate's workspace dependencies (normal and build).
    deps: BTreeMap<String, BTreeSet<String>>,
    /// Every crate (external ones included) each workspace crate builds
    /// against, transitively, through normal and build dependencies.
    closure: BTreeMap<String, BTreeSet<String>>,
}

/// Reads the workspace at `root` through `cargo metadata` and checks its layers.
pub(crate) fn check(root: &Path) -> anyhow::Result<Check> {
    let graph = graph(root)?;
    let problems = problems(&graph);
    Ok(Check {
        name: "architecture",
        summary: format!(
            "{} workspace crates checked against their layers (leaves, core, plug-ins, top)",
            graph.deps.len()
        ),
        problems,
        warnings: Vec::new(),
    })
}

fn graph(root: &Path) -> anyhow::Result<Graph> {
    let metadata = MetadataCommand::new()
        .manifest_path(root.join("Cargo.toml"))
        .exec()
        .context("running `cargo metadata`")?;
    let names: BTreeMap<_, String> = metadata
        .packages
        .iter()
        .map(|p| (p.id.clone(), p.name.to_string()))
        .collect();
    let members: BTreeSet<String> = metadata
        .workspace_packages()
        .iter()
        .map(|p| p.name.to_string())
        .collect();
    let resolve = metadata
        .resolve
        .as_ref()
        .context("`cargo metadata` gave no dependency resolution")?;
    // Each package's direct normal and build dependencies, by name.
    let mut direct: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in &resolve.nodes {
        let Some(name) = names.get(&node.id) else {
            continue;
        };
        let deps =
            node.deps
                .iter()
                .filter(|dep| {
                    dep.dep_kinds.is_empty()
                        || dep.dep_kinds.iter().any(|k| {
                            matches!(k.kind, DependencyKind::Normal | DependencyKind::Build)
                        })
                })
                .filter_map(|dep| names.get(&dep.pkg).cloned());
        direct.entry(name.clone()).or_default().extend(deps);
    }
    let mut graph = Graph::default();
    for member in &members {
        let deps = direct.get(member).cloned().unwrap_or_default();
        graph.deps.insert(
            member.clone(),
            deps.intersection(&members).cloned().collect(),
        );
        let mut closure = BTreeSet::new();
        let mut pending: Vec<&String> = deps.iter().collect();
        while let Some(dep) = pending.pop() {
            if closure.insert(dep.clone()) {
                pending.extend(direct.get(dep).into_iter().flatten());
            }
        }
        graph.closure.insert(member.clone(), closure);
    }
    Ok(graph)
}

/// Every way `graph` breaks the layering, each with how to fix it.
fn problems(graph: &Graph) -> Vec<String> {
    let mut problems = Vec::new();
    let known: BTreeSet<&str> = LEAVES
        .iter()
        .chain(PLUGINS)
        .chain(TOP)
        .copied()
        .chain([CORE])
        .collect();
    for name in &known {
        if !graph.deps.contains_key(*name) {
            problems.push(format!(
                "`{name}` is named in the layers of xtask/src/architecture.rs but is not a workspace \
                 crate; remove it there, or restore the crate"
            ));
        }
    }
    for (name, deps) in &graph.deps {
        if !known.contains(name.as_str()) {
            problems.push(format!(
                "workspace crate `{name}` is in no layer; add it to LEAVES (no workspace dependencies), \
                 PLUGINS (on jit-core) or TOP (binaries and tests) in xtask/src/architecture.rs"
            ));
            continue;
        }
        for dep in deps {
            if let Some(problem) = edge_problem(name, dep) {
                problems.push(problem);
            }
        }
        if PLUGINS.contains(&name.as_str()) && !deps.contains(CORE) {
            problems.push(format!(
                "plug-in `{name}` does not depend on `{CORE}`; a plug-in implements jit-core's traits \
                 and registers with its inventory: add `{CORE}.workspace = true` to its \
                 [dependencies], or move the crate to another layer"
            ));
        }
    }
    for (external, crates, why) in CONFINED {
        for name in crates.iter() {
            if graph
                .closure
                .get(*name)
                .is_some_and(|c| c.contains(*external))
            {
                problems.push(format!(
                    "`{name}` builds against `{external}`, which must stay out of it: {why}; remove \
                     the dependency that pulls it in (`cargo tree -p {name} -i {external}` shows which)"
                ));
            }
        }
    }
    problems
}

/// The problem with workspace crate `from` depending on workspace crate `to`, if any.
fn edge_problem(from: &str, to: &str) -> Option<String> {
    let layer = |name: &str| {
        if LEAVES.contains(&name) {
            "leaf"
        } else if name == CORE {
            "core"
        } else if PLUGINS.contains(&name) {
            "plug-in"
        } else {
            "top"
        }
    };
    let fix = match (layer(from), layer(to)) {
        (_, "top") => format!(
            "`{to}` is a binary or test crate that nothing depends on; move what `{from}` needs \
             from it into a library crate"
        ),
        ("leaf", _) => format!(
            "leaves know nothing of the rest of the workspace; remove the dependency, or make \
             `{from}` a plug-in if it needs `{to}`"
        ),
        ("core", "plug-in") => format!(
            "jit-core depends on no plug-in; declare a trait in jit-core for what it needs and \
             implement it in `{to}`"
        ),
        ("plug-in", "plug-in") => {
            "plug-ins are independent of each other; move what they share into jit-core or a leaf"
                .to_owned()
        }
        _ => return None,
    };
    Some(format!(
        "{} `{from}` depends on {} `{to}`: {fix}",
        layer(from),
        layer(to)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The graph of the design: leaves alone, core on a leaf, plug-ins on core.
    fn designed() -> Graph {
        let mut graph = Graph::default();
        for (name, deps, closure) in [
            ("jit-bash", &[][..], &["tree-sitter-bash"][..]),
            ("jit-imports", &[], &["pulldown-cmark"]),
            ("jit-core", &["jit-imports"], &["jit-imports", "globset"]),
            (
                "jit-tools",
                &["jit-core", "jit-bash"],
                &["jit-core", "jit-bash"],
            ),
            ("jit-git", &["jit-core"], &["jit-core", "gix"]),
            ("jit-cli", &["jit-core", "jit-tools", "jit-git"], &["gix"]),
            ("xtask", &["jit-core", "jit-tools"], &["cargo_metadata"]),
            ("tests", &[], &[]),
        ] {
            graph
                .deps
                .insert(name.into(), deps.iter().map(|d| d.to_string()).collect());
            graph
                .closure
                .insert(name.into(), closure.iter().map(|d| d.to_string()).collect());
        }
        graph
    }

    #[track_caller]
    fn check(change: impl FnOnce(&mut Graph), expected: &[&str]) {
        let mut graph = designed();
        change(&mut graph);
        assert_eq!(problems(&graph), expected);
    }

    fn add_dep(graph: &mut Graph, from: &str, to: &str) {
        graph.deps.get_mut(from).unwrap().insert(to.into());
    }

    #[test]
    fn the_designed_graph_passes() {
        check(|_| {}, &[]);
    }

    #[test]
    fn core_depending_on_a_plug_in_fails() {
        check(
            |g| add_dep(g, "jit-core", "jit-tools"),
            &[
                "core `jit-core` depends on plug-in `jit-tools`: jit-core depends on no plug-in; \
               declare a trait in jit-core for what it needs and implement it in `jit-tools`",
            ],
        );
    }

    #[test]
    fn a_leaf_with_a_workspace_dependency_fails() {
        check(
            |g| add_dep(g, "jit-bash", "jit-core"),
            &[
                "leaf `jit-bash` depends on core `jit-core`: leaves know nothing of the rest of the \
               workspace; remove the dependency, or make `jit-bash` a plug-in if it needs `jit-core`",
            ],
        );
    }

    #[test]
    fn a_plug_in_without_core_fails_and_plug_ins_stay_apart() {
        check(
            |g| {
                g.deps.get_mut("jit-git").unwrap().clear();
                add_dep(g, "jit-tools", "jit-git");
            },
            &[
                "plug-in `jit-git` does not depend on `jit-core`; a plug-in implements jit-core's \
                 traits and registers with its inventory: add `jit-core.workspace = true` to its \
                 [dependencies], or move the crate to another layer",
                "plug-in `jit-tools` depends on plug-in `jit-git`: plug-ins are independent of each \
                 other; move what they share into jit-core or a leaf",
            ],
        );
    }

    #[test]
    fn nothing_depends_on_a_binary() {
        check(
            |g| add_dep(g, "jit-tools", "jit-cli"),
            &[
                "plug-in `jit-tools` depends on top `jit-cli`: `jit-cli` is a binary or test crate \
               that nothing depends on; move what `jit-tools` needs from it into a library crate",
            ],
        );
    }

    #[test]
    fn gix_stays_out_of_core() {
        check(
            |g| {
                g.closure.get_mut("jit-core").unwrap().insert("gix".into());
            },
            &[
                "`jit-core` builds against `gix`, which must stay out of it: a harness author who \
               takes only these should not compile git; jit-core takes change signals through its \
               `ChangeSource` trait, which jit-git implements; remove the dependency that pulls it \
               in (`cargo tree -p jit-core -i gix` shows which)",
            ],
        );
    }

    #[test]
    fn every_crate_is_in_a_layer_and_every_layer_entry_exists() {
        check(
            |g| {
                g.deps.insert("jit-new".into(), BTreeSet::new());
                g.deps.remove("jit-git");
            },
            &[
                "`jit-git` is named in the layers of xtask/src/architecture.rs but is not a workspace \
                 crate; remove it there, or restore the crate",
                "workspace crate `jit-new` is in no layer; add it to LEAVES (no workspace dependencies), \
                 PLUGINS (on jit-core) or TOP (binaries and tests) in xtask/src/architecture.rs",
            ],
        );
    }
}
