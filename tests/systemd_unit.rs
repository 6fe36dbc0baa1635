//! The systemd unit (`systemd/touchmove.service`), its example configuration
//! and the Debian packaging that installs them.
//!
//! `systemd-analyze` must be installed: these tests fail, not skip, without it.
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use touchmove_core::clock::TimeControl;
use touchmove_core::game::Profile;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The highest `systemd-analyze security` exposure accepted (0 = locked down, 10 = exposed).
const MAX_EXPOSURE: f64 = 2.0;

fn repo_path(rel: &str) -> PathBuf {
    Path::new(ROOT).join(rel)
}

fn read(rel: &str) -> String {
    fs::read_to_string(repo_path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn unit_path() -> PathBuf {
    repo_path("systemd/touchmove.service")
}

/// One `Key=value` line of a unit file, with its section.
#[derive(Debug)]
struct Directive {
    section: String,
    key: String,
    value: String,
}

/// Reads a unit file the way systemd does for these simple files: sections,
/// `Key=value`, comments starting with `#` or `;` (no line continuations).
fn directives(text: &str) -> Vec<Directive> {
    let mut section = String::new();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        assert!(
            !line.ends_with('\\'),
            "line {}: continuation lines are not used in this unit",
            n + 1
        );
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.to_owned();
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .unwrap_or_else(|| panic!("line {}: not Key=value: {line}", n + 1));
        out.push(Directive {
            section: section.clone(),
            key: key.trim().to_owned(),
            value: value.trim().to_owned(),
        });
    }
    out
}

fn values<'a>(ds: &'a [Directive], section: &str, key: &str) -> Vec<&'a str> {
    ds.iter()
        .filter(|d| d.section == section && d.key == key)
        .map(|d| d.value.as_str())
        .collect()
}

/// The last assignment wins in systemd, and every key checked here is set once.
fn single<'a>(ds: &'a [Directive], section: &str, key: &str) -> &'a str {
    match values(ds, section, key).as_slice() {
        [v] => v,
        other => panic!("[{section}] {key}= expected once, found {other:?}"),
    }
}

fn is_true(value: &str) -> bool {
    matches!(value, "1" | "yes" | "y" | "true" | "t" | "on")
}

/// Parses a systemd time span made of whole units (`10s`, `1min`, `500ms`).
fn seconds(span: &str) -> f64 {
    let split = span
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(span.len());
    let (n, unit) = span.split_at(split);
    let n: f64 = n
        .parse()
        .unwrap_or_else(|_| panic!("time span {span:?}: no number"));
    let factor = match unit.trim() {
        "" | "s" | "sec" => 1.0,
        "ms" | "msec" => 0.001,
        "min" | "m" => 60.0,
        other => panic!("time span {span:?}: unit {other:?} not handled here"),
    };
    n * factor
}

fn systemd_analyze(args: &[&str]) -> Output {
    Command::new("systemd-analyze")
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run systemd-analyze ({e}): install systemd (apt-get install systemd)")
        })
}

#[test]
fn unit_is_a_notify_service_with_a_watchdog_that_restarts_on_failure() {
    let ds = directives(&fs::read_to_string(unit_path()).unwrap());
    assert_eq!(single(&ds, "Service", "Type"), "notify");
    // Only the main process may send READY=1 and WATCHDOG=1.
    assert_eq!(single(&ds, "Service", "NotifyAccess"), "main");
    let watchdog = seconds(single(&ds, "Service", "WatchdogSec"));
    assert!(
        watchdog >= 2.0,
        "WatchdogSec={watchdog}s leaves the scan loop too little slack"
    );
    assert_eq!(single(&ds, "Service", "Restart"), "on-failure");
    assert_eq!(
        single(&ds, "Service", "ExecStart"),
        "/usr/bin/touchmove run --config /etc/touchmove/touchmove.toml"
    );
    assert_eq!(single(&ds, "Install", "WantedBy"), "multi-user.target");
}

#[test]
fn unit_runs_as_the_touchmove_user_in_the_hardware_groups() {
    let ds = directives(&fs::read_to_string(unit_path()).unwrap());
    assert_eq!(single(&ds, "Service", "User"), "touchmove");
    let groups: Vec<&str> = single(&ds, "Service", "SupplementaryGroups")
        .split_whitespace()
        .collect();
    for g in ["gpio", "i2c", "spi"] {
        assert!(groups.contains(&g), "SupplementaryGroups= lacks {g}");
    }
    assert!(values(&ds, "Service", "DynamicUser").is_empty());
}

#[test]
fn unit_keeps_gpio_reachable() {
    let ds = directives(&fs::read_to_string(unit_path()).unwrap());
    // These options hide or unmap the GPIO, I2C and SPI device nodes.
    for key in ["PrivateDevices", "PrivateUsers"] {
        for v in values(&ds, "Service", key) {
            assert!(!is_true(v), "{key}={v} breaks GPIO access");
        }
    }
    assert_eq!(single(&ds, "Service", "DevicePolicy"), "closed");
    let allowed: Vec<(&str, &str)> = values(&ds, "Service", "DeviceAllow")
        .into_iter()
        .map(|v| v.split_once(' ').unwrap_or((v, "rwm")))
        .collect();
    for (spec, access) in &allowed {
        // A numbered chip (/dev/gpiochip4) changes with the model and kernel.
        assert!(
            !spec.starts_with("/dev/gpiochip"),
            "DeviceAllow={spec}: name the device group, not a chip number"
        );
        assert!(
            !access.contains('m'),
            "DeviceAllow={spec}: mknod not needed"
        );
    }
    for group in ["char-gpiochip", "char-*gpiomem*", "char-i2c", "char-spi"] {
        assert!(
            allowed
                .iter()
                .any(|(spec, access)| spec == &group && *access == "rw"),
            "DeviceAllow={group} rw missing"
        );
    }
}

#[test]
fn unit_writes_only_its_state_directory() {
    let ds = directives(&fs::read_to_string(unit_path()).unwrap());
    assert_eq!(single(&ds, "Service", "ProtectSystem"), "strict");
    assert_eq!(single(&ds, "Service", "StateDirectory"), "touchmove");
    assert!(values(&ds, "Service", "ReadWritePaths").is_empty());
    for key in ["NoNewPrivileges", "ProtectHome", "PrivateTmp"] {
        assert!(is_true(single(&ds, "Service", key)), "{key}= is not on");
    }
    let families: Vec<&str> = single(&ds, "Service", "RestrictAddressFamilies")
        .split_whitespace()
        .collect();
    assert_eq!(families, ["AF_UNIX", "AF_INET", "AF_INET6"]);
}

/// A root directory for `systemd-analyze verify --root=`: the host's unit
/// directory (for the targets the unit refers to), a stand-in executable at
/// the unit's ExecStart path, and the unit under test.
struct VerifyRoot(PathBuf);

impl VerifyRoot {
    fn new(name: &str, unit_text: &str) -> VerifyRoot {
        VerifyRoot::with_unit(name, "touchmove.service", unit_text)
    }

    fn with_unit(name: &str, unit: &str, unit_text: &str) -> VerifyRoot {
        let root =
            std::env::temp_dir().join(format!("touchmove-verify-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let host_units = ["/usr/lib/systemd/system", "/lib/systemd/system"]
            .into_iter()
            .map(Path::new)
            .find(|p| p.join("multi-user.target").exists())
            .expect("no systemd unit directory with multi-user.target on this host");
        copy_dir(host_units, &root.join("usr/lib/systemd/system"));
        fs::create_dir_all(root.join("usr/bin")).unwrap();
        fs::create_dir_all(root.join("etc/systemd/system")).unwrap();
        let exe = root.join("usr/bin/touchmove");
        fs::write(&exe, "#!/bin/sh\nexit 0\n").unwrap();
        set_mode(&exe, 0o755);
        fs::write(root.join("etc/systemd/system").join(unit), unit_text).unwrap();
        VerifyRoot(root)
    }

    fn verify(&self) -> Output {
        self.verify_unit("touchmove.service")
    }

    fn verify_unit(&self, unit: &str) -> Output {
        let root = format!("--root={}", self.0.display());
        systemd_analyze(&["verify", "--man=no", &root, unit])
    }
}

impl Drop for VerifyRoot {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Copies a unit directory, keeping symbolic links as links (aliases).
fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        let dest = to.join(entry.file_name());
        if kind.is_symlink() {
            let target = fs::read_link(entry.path()).unwrap();
            std::os::unix::fs::symlink(target, &dest).unwrap();
        } else if kind.is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            fs::copy(entry.path(), &dest).unwrap();
        }
    }
}

fn describe(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn systemd_analyze_verify_passes_without_a_warning() {
    let root = VerifyRoot::new("clean", &fs::read_to_string(unit_path()).unwrap());
    let out = root.verify();
    // verify exits 0 on warnings such as an unknown key: silence is the test.
    assert!(
        out.status.success() && out.stderr.is_empty() && out.stdout.is_empty(),
        "{}",
        describe(&out)
    );
}

#[test]
fn the_verify_check_catches_a_misspelt_directive() {
    // Guards the test above: the same harness must see a broken unit.
    let unit = fs::read_to_string(unit_path())
        .unwrap()
        .replace("WatchdogSec=", "WatchdogSecs=");
    let root = VerifyRoot::new("broken", &unit);
    let out = root.verify();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Unknown key"), "{}", describe(&out));
}

/// The "Overall exposure level" figure of `systemd-analyze security`.
fn exposure() -> f64 {
    exposure_of(&unit_path())
}

fn exposure_of(unit: &Path) -> f64 {
    let name = unit.file_name().unwrap().to_str().unwrap();
    let out = systemd_analyze(&[
        "security",
        "--offline=true",
        "--no-pager",
        // Exit non-zero above 2.0 (the threshold is on a 0-100 scale).
        "--threshold=20",
        unit.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", describe(&out));
    let line = stdout
        .lines()
        .find(|l| l.contains(&format!("Overall exposure level for {name}:")))
        .unwrap_or_else(|| panic!("no overall exposure line\n{}", describe(&out)));
    let figure = line
        .rsplit_once(':')
        .unwrap()
        .1
        .split_whitespace()
        .next()
        .unwrap();
    figure
        .parse()
        .unwrap_or_else(|_| panic!("exposure {figure:?} in {line:?}"))
}

#[test]
fn security_exposure_is_at_most_two_and_recorded_in_the_readme() {
    let figure = exposure();
    assert!(
        figure <= MAX_EXPOSURE,
        "exposure {figure} above {MAX_EXPOSURE}"
    );
    let readme = read("systemd/README.md");
    let recorded = format!("exposure level **{figure:.1}**");
    assert!(
        readme.contains(&recorded),
        "systemd/README.md should say `{recorded}` (the figure measured now)"
    );
}

#[test]
fn example_config_is_valid_toml_with_known_rules_and_time_control() {
    let text = read("systemd/touchmove.toml");
    let config: toml::Table =
        toml::from_str(&text).unwrap_or_else(|e| panic!("systemd/touchmove.toml: {e}"));
    let get = |section: &str, key: &str| -> String {
        config
            .get(section)
            .and_then(|s| s.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("systemd/touchmove.toml: [{section}] {key} missing"))
            .to_owned()
    };
    let profile = get("rules", "profile");
    profile
        .parse::<Profile>()
        .unwrap_or_else(|e| panic!("[rules] profile: {e}"));
    TimeControl::parse_human(&get("rules", "time-control"))
        .unwrap_or_else(|e| panic!("[rules] time-control: {e}"));
    assert!(get("board", "profile").starts_with("/usr/share/touchmove/hw/"));
    // The journal lives in the unit's StateDirectory=touchmove.
    assert!(get("journal", "path").starts_with("/var/lib/touchmove/"));
}

#[test]
fn debian_package_installs_what_the_unit_runs() {
    let manifest: toml::Table = toml::from_str(&read("Cargo.toml")).unwrap();
    let deb = &manifest["package"]["metadata"]["deb"];
    let assets: Vec<(String, String)> = deb["assets"]
        .as_array()
        .expect("assets")
        .iter()
        .map(|a| {
            let a = a.as_array().expect("asset as [source, dest, mode]");
            (
                a[0].as_str().unwrap().to_owned(),
                a[1].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let has = |source: &str, dest: &str| assets.iter().any(|(s, d)| s == source && d == dest);
    // ExecStart's binary and --config file.
    assert!(has("target/release/touchmove", "usr/bin/"));
    assert!(has(
        "systemd/touchmove.toml",
        "etc/touchmove/touchmove.toml"
    ));
    assert!(has("hw/*.toml", "usr/share/touchmove/hw/"));
    // The unit itself comes from systemd-units (to /usr/lib/systemd/system/).
    let units = &deb["systemd-units"];
    assert_eq!(units["unit-scripts"].as_str(), Some("systemd/"));
    assert!(repo_path("systemd/touchmove.service").exists());
    // The scripts that create the user are executable and keep the debhelper hook.
    let scripts = deb["maintainer-scripts"].as_str().unwrap();
    for script in ["postinst", "postrm"] {
        let path = repo_path(scripts).join(script);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains("#DEBHELPER#"), "{script}: no #DEBHELPER#");
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "{script} is not executable");
    }
    let postinst = read(&format!("{scripts}postinst"));
    assert!(postinst.contains("adduser --system --group"));
}

#[test]
fn the_hall_unit_verifies_and_is_locked_down() {
    let text = read("systemd/touchmove-hall.service");
    let root = VerifyRoot::with_unit("hall", "touchmove-hall.service", &text);
    let out = root.verify_unit("touchmove-hall.service");
    assert!(
        out.status.success() && out.stderr.is_empty() && out.stdout.is_empty(),
        "{}",
        describe(&out)
    );
    // No hardware and no state: it can be locked down further than the board's.
    let figure = exposure_of(&repo_path("systemd/touchmove-hall.service"));
    assert!(
        figure <= MAX_EXPOSURE,
        "exposure {figure} above {MAX_EXPOSURE}"
    );
    let readme = read("systemd/README.md");
    let recorded = format!("hall unit's exposure level **{figure:.1}**");
    assert!(
        readme.contains(&recorded),
        "systemd/README.md should say `{recorded}` (the figure measured now)"
    );
}

/// Both units raise the open-file limit above the HTTP servers' need: the
/// connection cap (half of the limit less a reserve) then reaches its most.
#[test]
fn both_units_give_the_http_servers_room_for_their_connection_cap() {
    use touchmove_wire::serve::Limits;
    for unit in [
        "systemd/touchmove.service",
        "systemd/touchmove-hall.service",
    ] {
        let ds = directives(&read(unit));
        let files: u64 = single(&ds, "Service", "LimitNOFILE")
            .parse()
            .unwrap_or_else(|e| panic!("{unit}: LimitNOFILE: {e}"));
        let limits = Limits::for_open_files(files);
        assert_eq!(limits.max_connections, 4096, "{unit}");
        assert_eq!(limits.max_streams, 1024, "{unit}");
    }
}
