//! Slurm's hostlist and tasks-per-node notations (`launch::slurm`): by example,
//! including every kind of malformed input, and round trips by property.

use collectives::launch::slurm::{
    SyntaxError, compress_hostlist, compress_tasks_per_node, expand_hostlist, expand_tasks_per_node,
};
use proptest::prelude::*;

#[test]
fn hostlists_by_example() {
    let cases: &[(&str, &str)] = &[
        ("gpu[001-004,010]", "gpu001 gpu002 gpu003 gpu004 gpu010"),
        ("a1,b[1-2]", "a1 b1 b2"),
        ("node7", "node7"),
        ("x,y,z", "x y z"),
        ("n[8-10]", "n8 n9 n10"),
        ("n[08-10]", "n08 n09 n10"),
        ("n[1-2]-ib", "n1-ib n2-ib"),
        ("[3-4]", "3 4"),
        (
            "rack[1-2]-node[01-02]",
            "rack1-node01 rack1-node02 rack2-node01 rack2-node02",
        ),
        ("a[1,3],b[2]c", "a1 a3 b2c"),
    ];
    for (list, hosts) in cases {
        let hosts: Vec<String> = hosts.split(' ').map(str::to_owned).collect();
        assert_eq!(expand_hostlist(list), Ok(hosts), "{list}");
    }
    let bad = [
        "gpu[3-1]",
        "gpu[",
        "gpu[a-b]",
        "",
        "gpu[]",
        "gpu]",
        "a,,b",
        "a,",
        "gpu[[1-2]]",
        "gpu[1--2]",
        "gpu[-1]",
        "a b",
        "gpu[1-2",
    ];
    for bad in bad {
        let e = expand_hostlist(bad).unwrap_err();
        let SyntaxError::Hostlist { input, .. } = &e else {
            panic!("{bad:?}: {e:?}")
        };
        assert_eq!(input, bad);
    }
    let hosts = [
        "gpu001", "gpu002", "gpu003", "gpu010", "login", "n9", "n10", "x5y",
    ];
    let list = compress_hostlist(&hosts);
    assert_eq!(list.as_deref(), Ok("gpu[001-003,010],login,n[9-10],x5y"));
    assert!(compress_hostlist::<&str>(&[]).is_err());
    assert!(compress_hostlist(&["a[1]"]).is_err());
}

#[test]
fn tasks_per_node_by_example() {
    assert_eq!(expand_tasks_per_node("2(x3),1"), Ok(vec![2, 2, 2, 1]));
    assert_eq!(expand_tasks_per_node("4"), Ok(vec![4]));
    assert_eq!(expand_tasks_per_node("1,2(x2),0"), Ok(vec![1, 2, 2, 0]));
    let bad = [
        "", "2(x0)", "2(x", "x3", "2(3)", "a", "2,,1", "-1", " 1", "2(x3)1", "1,",
    ];
    for bad in bad {
        let e = expand_tasks_per_node(bad).unwrap_err();
        let SyntaxError::TasksPerNode { input, .. } = &e else {
            panic!("{bad:?}: {e:?}")
        };
        assert_eq!(input, bad);
    }
    assert_eq!(compress_tasks_per_node(&[2, 2, 2, 1]), "2(x3),1");
    assert_eq!(compress_tasks_per_node(&[]), "");
}

/// A host name, maybe with a zero-padded number and a suffix.
fn host() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(vec!["gpu", "node", "rack1-n", "a.b", "ü-", ""]);
    let suffix = prop::sample::select(vec!["", "-ib", ".x"]);
    let number = prop::option::of((0u64..40, 0usize..4));
    (prefix, number, suffix).prop_map(|(p, n, s)| match n {
        Some((n, width)) => format!("{p}{n:0width$}{s}"),
        None if p.is_empty() => format!("h{s}"),
        None => format!("{p}{s}"),
    })
}

/// A hostlist as a person would write one: names with up to two bracket groups.
fn hostlist() -> impl Strategy<Value = String> {
    let range = (0u64..30, 0u64..4, 1usize..4).prop_map(|(lo, len, width)| match len {
        0 => format!("{lo:0width$}"),
        _ => format!("{lo:0width$}-{}", lo + len),
    });
    let group = prop::collection::vec(range, 1..3).prop_map(|r| format!("[{}]", r.join(",")));
    let groups = (prop::option::of(group.clone()), prop::option::of(group));
    let name = prop::sample::select(vec!["n", "gpu", "r"]);
    let middle = prop::sample::select(vec!["", "-x"]);
    let item = (name, groups, middle).prop_map(|(name, (a, b), middle)| {
        format!(
            "{name}{}{middle}{}",
            a.unwrap_or_default(),
            b.unwrap_or_default()
        )
    });
    prop::collection::vec(item, 1..5).prop_map(|items| items.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn compressed_hosts_expand_to_themselves(hosts in prop::collection::vec(host(), 1..30)) {
        let list = compress_hostlist(&hosts).unwrap();
        prop_assert_eq!(expand_hostlist(&list).unwrap(), hosts, "{}", list);
    }

    #[test]
    fn expand_compress_expand_round_trips(list in hostlist()) {
        let hosts = expand_hostlist(&list).unwrap();
        let again = compress_hostlist(&hosts).unwrap();
        prop_assert_eq!(expand_hostlist(&again).unwrap(), hosts, "{} -> {}", list, again);
    }

    #[test]
    fn tasks_per_node_round_trips(counts in prop::collection::vec(0usize..4, 1..40)) {
        let text = compress_tasks_per_node(&counts);
        prop_assert_eq!(expand_tasks_per_node(&text).unwrap(), counts, "{}", text);
    }
}
