//! The architecture check: the workspace's crate layers, read from `cargo metadata`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::Context as _;
use cargo_metadata::{DependencyKind, MetadataCommand, NodeDep, Package};

use crate::Check;

/// Leaves are useful alone and know nothing of the rest of the workspace.
const LEAVES: &[&str] = &["jit-base", "jit-bash", "jit-imports"];
/// The leaf under the engine: the traits plug-ins implement, the registry
/// they register with, the error type and the path helpers.
const BASE: &str = "jit-base";
/// The engine: rule discovery, YAML frontmatter, scopes, sessions.
const CORE: &str = "jit-core";
/// Plug-ins implement `jit-base`'s traits and register with its `inventory`.
const PLUGINS: &[&str] = &["jit-git", "jit-tools"];
/// Binaries and test crates, which may use anything and which nothing uses
/// (`bench-tree`, the benchmark fixtures, only as a dev-dependency).
const TOP: &[&str] = &["bench-tree", "jit-cli", "tests", "xtask"];

/// Crates with default features that a harness author may turn off; each is
/// checked a second time as built that way, under [`no_defaults`]'s name.
const WITHOUT_DEFAULTS: &[&str] = &["jit-tools"];

/// The name a crate built without its default features is checked under:
/// also the `cargo tree` arguments that show that build.
fn no_defaults(name: &str) -> String {
    format!("{name} --no-default-features")
}

/// The builds the shell parser's two crates (the grammar and its runtime)
/// must stay out of.
const SHELL_PARSER_OUT_OF: &[&str] = &[
    "jit-base",
    "jit-core",
    "jit-git",
    "jit-imports",
    "jit-tools --no-default-features",
];
/// Why.
const SHELL_PARSER_WHY: &str = "the shell parser (C code built by `cc`) belongs to jit-bash, and \
                                to jit-tools only through its `bash` feature";

/// External crates that must stay out of some workspace crates' builds, and
/// why. Each is allowed in the crate that needs it and in the crates that
/// depend on that one on purpose; binaries and tests may have anything.
const CONFINED: &[(&str, &[&str], &str)] = &[
    (
        "gix",
        &[
            "jit-base",
            "jit-bash",
            "jit-core",
            "jit-imports",
            "jit-tools",
            "jit-tools --no-default-features",
        ],
        "a harness author who takes only these should not compile git; jit-core takes change \
         signals through its `ChangeSource` trait, which jit-git implements",
    ),
    (
        "serde-saphyr",
        &[
            "jit-base",
            "jit-bash",
            "jit-git",
            "jit-imports",
            "jit-tools",
            "jit-tools --no-default-features",
        ],
        "only jit-core reads YAML frontmatter; plug-ins build on jit-base, which declares their \
         traits, so a harness that takes a plug-in compiles no YAML parser",
    ),
    ("tree-sitter", SHELL_PARSER_OUT_OF, SHELL_PARSER_WHY),
    ("tree-sitter-bash", SHELL_PARSER_OUT_OF, SHELL_PARSER_WHY),
    (
        "pulldown-cmark",
        &[
            "jit-base",
            "jit-bash",
            "jit-git",
            "jit-tools",
            "jit-tools --no-default-features",
        ],
        "only jit-imports parses Markdown (and jit-core through it, for imports); plug-ins build \
         on jit-base",
    ),
    (
        "globset",
        &[
            "jit-base",
            "jit-bash",
            "jit-git",
            "jit-imports",
            "jit-tools",
            "jit-tools --no-default-features",
        ],
        "only jit-core matches rule scopes; plug-ins build on jit-base, which matches no glob",
    ),
];

/// What the checks need to know about the workspace's crates.
#[derive(Debug, Default)]
struct Graph {
    /// Each workspace crate's workspace dependencies (normal and build).
    deps: BTreeMap<String, BTreeSet<String>>,
    /// Every crate (external ones included) each workspace crate builds
    /// against, transitively, through normal and build dependencies; and the
    /// same for each crate of [`WITHOUT_DEFAULTS`] built without its default
    /// features, under [`no_defaults`]'s name.
    closure: BTreeMap<String, BTreeSet<String>>,
}

/// Reads the workspace at `root` through `cargo metadata` and checks its layers.
pub(crate) fn check(root: &Path) -> anyhow::Result<Check> {
    let graph = graph(root)?;
    let problems = problems(&graph);
    Ok(Check {
        name: "architecture",
        summary: format!(
            "{} workspace crates checked against their layers (leaves, core, plug-ins, top); {} \
             builds checked for the heavy crates confined to a few (git, YAML, the shell parser, \
             Markdown, globbing)",
            graph.deps.len(),
            graph.closure.len()
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
    // Each package's direct normal and build dependencies, by name, as the
    // resolve activated them: an optional dependency is a dep of its node
    // only when a feature turned it on.
    let mut direct: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for node in &resolve.nodes {
        let Some(name) = names.get(&node.id) else {
            continue;
        };
        let deps = node
            .deps
            .iter()
            .filter(|dep| builds_against(dep))
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
        graph
            .closure
            .insert(member.clone(), closure(&deps, &direct));
    }
    // The crates a harness author may take without their default features.
    // `cargo metadata` resolves every workspace member together, so its
    // features are unified across the workspace: jit-cli takes jit-tools
    // with its defaults, and that turns `bash` on in the resolve whatever
    // `--no-default-features` says (running it again with that flag on
    // jit-tools' manifest gives the same graph). So the crate's own
    // dependencies are filtered here by the features it turns on itself,
    // from its manifest; the crates below it keep the workspace's unified
    // features, which can only be more than that build turns on, so what
    // passes here passes in the real build too.
    for name in WITHOUT_DEFAULTS {
        let package = metadata
            .workspace_packages()
            .into_iter()
            .find(|p| p.name.as_str() == *name)
            .with_context(|| {
                format!(
                    "`{name}` is named in WITHOUT_DEFAULTS in xtask/src/architecture.rs but is \
                     not a workspace crate"
                )
            })?;
        let node = resolve
            .nodes
            .iter()
            .find(|n| n.id == package.id)
            .with_context(|| format!("`cargo metadata` resolved no node for `{name}`"))?;
        let enabled = optional_deps_enabled(package, &[]);
        let deps: BTreeSet<String> = node
            .deps
            .iter()
            .filter(|dep| builds_against(dep))
            .filter_map(|dep| names.get(&dep.pkg))
            .filter(|dep| {
                package.dependencies.iter().any(|d| {
                    d.name == **dep
                        && matches!(d.kind, DependencyKind::Normal | DependencyKind::Build)
                        && (!d.optional || enabled.contains(d.rename.as_deref().unwrap_or(&d.name)))
                })
            })
            .cloned()
            .collect();
        graph
            .closure
            .insert(no_defaults(name), closure(&deps, &direct));
    }
    Ok(graph)
}

/// Whether a resolved dependency is built into its dependent (a normal or
/// build dependency), not only into its tests.
fn builds_against(dep: &NodeDep) -> bool {
    dep.dep_kinds.is_empty()
        || dep
            .dep_kinds
            .iter()
            .any(|k| matches!(k.kind, DependencyKind::Normal | DependencyKind::Build))
}

/// Everything `deps` build against, themselves included, following `direct`.
fn closure(
    deps: &BTreeSet<String>,
    direct: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeSet<String> {
    let mut closure = BTreeSet::new();
    let mut pending: Vec<&String> = deps.iter().collect();
    while let Some(dep) = pending.pop() {
        if closure.insert(dep.clone()) {
            pending.extend(direct.get(dep).into_iter().flatten());
        }
    }
    closure
}

/// The optional dependencies (by the name the manifest gives them) that
/// `package` turns on when built with exactly `requested` features (no
/// `default` unless asked for).
fn optional_deps_enabled(package: &Package, requested: &[&str]) -> BTreeSet<String> {
    let optional: BTreeSet<&str> = package
        .dependencies
        .iter()
        .filter(|d| d.optional)
        .map(|d| d.rename.as_deref().unwrap_or(&d.name))
        .collect();
    enabled_by(&package.features, &optional, requested)
}

/// Which of the `optional` dependencies the `requested` features turn on,
/// following a `[features]` table: `dep:x`, an optional dependency's
/// implicit feature `x`, and `x/feature` turn `x` on; `x?/feature` does not.
fn enabled_by(
    features: &BTreeMap<String, Vec<String>>,
    optional: &BTreeSet<&str>,
    requested: &[&str],
) -> BTreeSet<String> {
    let mut enabled = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut pending: Vec<&str> = requested.to_vec();
    while let Some(feature) = pending.pop() {
        if !seen.insert(feature) {
            continue;
        }
        if let Some(values) = features.get(feature) {
            pending.extend(values.iter().map(String::as_str));
        }
        let dep = if let Some(dep) = feature.strip_prefix("dep:") {
            Some(dep)
        } else if let Some((dep, _)) = feature.split_once('/') {
            (!dep.ends_with('?')).then_some(dep)
        } else {
            Some(feature)
        };
        if let Some(dep) = dep.filter(|dep| optional.contains(dep)) {
            enabled.insert(dep.to_owned());
        }
    }
    enabled
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
                 PLUGINS (on jit-base) or TOP (binaries and tests) in xtask/src/architecture.rs"
            ));
            continue;
        }
        for dep in deps {
            if let Some(problem) = edge_problem(name, dep) {
                problems.push(problem);
            }
        }
        if PLUGINS.contains(&name.as_str()) && !deps.contains(BASE) {
            problems.push(format!(
                "plug-in `{name}` does not depend on `{BASE}`; a plug-in implements jit-base's traits \
                 and registers with its inventory: add `{BASE}.workspace = true` to its \
                 [dependencies], or move the crate to another layer"
            ));
        }
    }
    for (external, crates, why) in CONFINED {
        for name in crates.iter() {
            let Some(closure) = graph.closure.get(*name) else {
                problems.push(format!(
                    "`{name}` is named in CONFINED in xtask/src/architecture.rs but is not a \
                     workspace crate (nor, with ` --no-default-features`, one of WITHOUT_DEFAULTS), \
                     so `{external}` is not checked there; fix the name or remove it"
                ));
                continue;
            };
            if closure.contains(*external) {
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

    /// The graph of the design: leaves alone, core on leaves, plug-ins on
    /// jit-base, each closure with the confined crates it may have.
    fn designed() -> Graph {
        let mut graph = Graph::default();
        for (name, deps, closure) in [
            ("jit-base", &[][..], &["camino", "inventory"][..]),
            ("jit-bash", &[], &["tree-sitter", "tree-sitter-bash"]),
            ("jit-imports", &[], &["pulldown-cmark"]),
            (
                "jit-core",
                &["jit-base", "jit-imports"],
                &[
                    "jit-base",
                    "jit-imports",
                    "globset",
                    "pulldown-cmark",
                    "serde-saphyr",
                ],
            ),
            (
                "jit-tools",
                &["jit-base", "jit-bash"],
                &["jit-base", "jit-bash", "tree-sitter", "tree-sitter-bash"],
            ),
            ("jit-git", &["jit-base"], &["jit-base", "gix"]),
            ("jit-cli", &["jit-core", "jit-tools", "jit-git"], &["gix"]),
            ("xtask", &["jit-core", "jit-tools"], &["cargo_metadata"]),
            ("tests", &[], &[]),
            ("bench-tree", &[], &[]),
        ] {
            graph
                .deps
                .insert(name.into(), deps.iter().map(|d| d.to_string()).collect());
            graph
                .closure
                .insert(name.into(), closure.iter().map(|d| d.to_string()).collect());
        }
        graph.closure.insert(
            no_defaults("jit-tools"),
            ["jit-base", "camino"].map(String::from).into(),
        );
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
    fn a_plug_in_without_base_fails_and_plug_ins_stay_apart() {
        check(
            |g| {
                g.deps.get_mut("jit-git").unwrap().clear();
                add_dep(g, "jit-tools", "jit-git");
            },
            &[
                "plug-in `jit-git` does not depend on `jit-base`; a plug-in implements jit-base's \
                 traits and registers with its inventory: add `jit-base.workspace = true` to its \
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
                 PLUGINS (on jit-base) or TOP (binaries and tests) in xtask/src/architecture.rs",
            ],
        );
    }

    #[test]
    fn yaml_stays_out_of_the_plug_ins() {
        check(
            |g| {
                g.closure
                    .get_mut("jit-git")
                    .unwrap()
                    .insert("serde-saphyr".into());
            },
            &[
                "`jit-git` builds against `serde-saphyr`, which must stay out of it: only jit-core \
                 reads YAML frontmatter; plug-ins build on jit-base, which declares their traits, so \
                 a harness that takes a plug-in compiles no YAML parser; remove the dependency that \
                 pulls it in (`cargo tree -p jit-git -i serde-saphyr` shows which)",
            ],
        );
    }

    #[test]
    fn the_shell_parser_is_checked_in_jit_tools_without_its_default_features() {
        // With its defaults jit-tools has the parser (the designed graph says
        // so and passes); without them it must not.
        check(
            |g| {
                let lean = g
                    .closure
                    .get_mut("jit-tools --no-default-features")
                    .unwrap();
                lean.insert("jit-bash".into());
                lean.insert("tree-sitter".into());
            },
            &[
                "`jit-tools --no-default-features` builds against `tree-sitter`, which must stay out \
                 of it: the shell parser (C code built by `cc`) belongs to jit-bash, and to jit-tools \
                 only through its `bash` feature; remove the dependency that pulls it in \
                 (`cargo tree -p jit-tools --no-default-features -i tree-sitter` shows which)",
            ],
        );
    }

    #[test]
    fn the_base_builds_against_none_of_the_confined_crates() {
        let mut graph = designed();
        let base = graph.closure.get_mut("jit-base").unwrap();
        for external in [
            "gix",
            "serde-saphyr",
            "tree-sitter",
            "tree-sitter-bash",
            "pulldown-cmark",
            "globset",
        ] {
            base.insert(external.into());
        }
        let found: Vec<String> = problems(&graph)
            .iter()
            .map(|p| p.split(',').next().unwrap().to_owned())
            .collect();
        assert_eq!(
            found,
            [
                "`jit-base` builds against `gix`",
                "`jit-base` builds against `serde-saphyr`",
                "`jit-base` builds against `tree-sitter`",
                "`jit-base` builds against `tree-sitter-bash`",
                "`jit-base` builds against `pulldown-cmark`",
                "`jit-base` builds against `globset`",
            ]
        );
    }

    #[test]
    fn a_confined_build_that_was_not_computed_fails_instead_of_passing_unchecked() {
        let mut graph = designed();
        graph.closure.remove("jit-tools --no-default-features");
        let problems = problems(&graph);
        assert_eq!(problems.len(), 6, "{problems:#?}");
        assert_eq!(
            problems[0],
            "`jit-tools --no-default-features` is named in CONFINED in xtask/src/architecture.rs \
             but is not a workspace crate (nor, with ` --no-default-features`, one of \
             WITHOUT_DEFAULTS), so `gix` is not checked there; fix the name or remove it"
        );
    }

    #[test]
    fn features_turn_on_optional_dependencies_as_cargo_does() {
        let features: BTreeMap<String, Vec<String>> = [
            ("default", &["bash"][..]),
            ("bash", &["dep:jit-bash"]),
            ("fast", &["simd/fast", "log?/std"]),
            ("all", &["bash", "fast", "extra"]),
        ]
        .into_iter()
        .map(|(name, values)| {
            (
                name.to_owned(),
                values.iter().map(|v| v.to_string()).collect(),
            )
        })
        .collect();
        let optional = BTreeSet::from(["jit-bash", "simd", "log", "extra"]);
        let enabled = |requested: &[&str]| -> Vec<String> {
            enabled_by(&features, &optional, requested)
                .into_iter()
                .collect()
        };
        assert_eq!(enabled(&[]), Vec::<String>::new());
        assert_eq!(enabled(&["default"]), ["jit-bash"]);
        // `x/feature` turns `x` on, `x?/feature` does not.
        assert_eq!(enabled(&["fast"]), ["simd"]);
        // An optional dependency's implicit feature turns it on.
        assert_eq!(enabled(&["all"]), ["extra", "jit-bash", "simd"]);
    }

    /// The real workspace, read through `cargo metadata`: jit-tools without
    /// its default features loses jit-bash and the shell parser, which its
    /// default build has, although the workspace's resolve unifies `bash` on.
    #[test]
    fn jit_tools_without_defaults_is_computed_from_its_own_features() {
        let graph = graph(&crate::workspace_root()).unwrap();
        let default = &graph.closure["jit-tools"];
        let lean = &graph.closure["jit-tools --no-default-features"];
        assert!(default.contains("jit-bash") && default.contains("tree-sitter"));
        assert!(lean.contains("jit-base"), "{lean:?}");
        for heavy in [
            "jit-bash",
            "tree-sitter",
            "serde-saphyr",
            "gix",
            "pulldown-cmark",
            "globset",
        ] {
            assert!(!lean.contains(heavy), "{heavy} in {lean:?}");
        }
    }
}
