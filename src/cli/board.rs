//! `touchmove board check --board hw/PROFILE.toml`: the bring-up of a newly
//! built board in the terminal (ratatui on crossterm).
//!
//! The screen shows the 64 squares as the board reads them, at the scan
//! rate, beside what to do now and what has been found; Enter answers
//! "done", `s` skips a step, `q` quits. The check itself is
//! [`touchmove_hw::bringup::Check`]; this file only scans, draws and writes the
//! corrected profile next to the given one (`PROFILE.checked.toml`, or
//! `--out`). The exit status is 0 when the board is ready, 1 while faults
//! remain, 2 when the check was left before its end.
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossterm::event::{self, Event, KeyCode, KeyEventKind};
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use shakmaty::{File, Rank, Square};

use touchmove_core::Millis;
use touchmove_hw::bringup::for_profile::{check_config, checked_path, summary, write_result};
use touchmove_hw::bringup::{Answer, Check, Step};
use touchmove_hw::profile::{self, BoardProfile};

/// Arguments of `touchmove board`.
#[derive(Debug, clap::Args)]
pub struct BoardArgs {
    #[command(subcommand)]
    pub command: BoardCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum BoardCommand {
    /// Interactive bring-up of a newly built board: stuck and dead squares,
    /// orientation and swapped wires, ghosting, chatter, Hall margins; writes
    /// a corrected profile next to the given one.
    Check(CheckArgs),
}

/// Arguments of `touchmove board check`.
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The board profile (hw/*.toml).
    #[arg(long, value_name = "PROFILE")]
    pub board: PathBuf,
    /// Where to write the corrected profile (default: beside the given one,
    /// `NAME.checked.toml`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Runs `touchmove board ...`; the process's exit status.
pub fn run(args: BoardArgs) -> anyhow::Result<()> {
    match args.command {
        BoardCommand::Check(args) => {
            let code = check(args)?;
            if code != 0 {
                std::process::exit(code);
            }
            Ok(())
        }
    }
}

fn check(args: CheckArgs) -> anyhow::Result<i32> {
    let profile = profile::load(&args.board)?;
    if !std::io::stdout().is_terminal() {
        anyhow::bail!(
            "touchmove board check talks to you on a terminal; without one, run \
             `touchmove run --config FILE --setup` and open /setup in a browser"
        );
    }
    let mut scanner =
        profile::open(&profile).map_err(|e| anyhow::anyhow!("{}: {e}", profile.file.display()))?;
    let out = args.out.unwrap_or_else(|| checked_path(&profile.file));
    let mut check = Check::new(check_config(&profile));
    let period = profile.scan_period();
    let origin = Instant::now();
    let mut terminal = ratatui::init();
    let result = (|| -> anyhow::Result<bool> {
        let mut next_scan = Instant::now();
        let mut last_draw = Instant::now() - Duration::from_secs(1);
        loop {
            let now = Instant::now();
            if now >= next_scan {
                let t = origin.elapsed().as_millis() as Millis;
                let scan = scanner
                    .scan(t)
                    .map_err(|e| anyhow::anyhow!("reading the board: {e}"))?;
                check.scan(t, &scan);
                next_scan += period;
                if next_scan < now {
                    next_scan = now + period;
                }
                // The screen follows the scans, at most 20 times a second.
                if last_draw.elapsed() >= Duration::from_millis(50) {
                    terminal.draw(|frame| draw(frame, &check, &profile))?;
                    last_draw = Instant::now();
                }
                if check.step() == Step::Done {
                    return Ok(true);
                }
            }
            let wait = next_scan.saturating_duration_since(Instant::now());
            if event::poll(wait.min(Duration::from_millis(50)))?
                && let Event::Key(key) = event::read()?
            {
                {
                    if key.kind != KeyEventKind::Press {
                        continue;
                    }
                    let t = origin.elapsed().as_millis() as Millis;
                    match key.code {
                        KeyCode::Char('q') | KeyCode::Esc => return Ok(false),
                        _ if check.step() == Step::Done => {}
                        KeyCode::Enter => {
                            let _ = check.answer(t, Answer::Next);
                        }
                        KeyCode::Char('s') => {
                            let _ = check.answer(t, Answer::Skip);
                        }
                        _ => {}
                    }
                    if check.step() == Step::Done {
                        return Ok(true);
                    }
                    terminal.draw(|frame| draw(frame, &check, &profile))?;
                }
            }
        }
    })();
    let finished = match result {
        Ok(finished) => finished,
        Err(e) => {
            ratatui::restore();
            return Err(e);
        }
    };
    let written = if finished {
        write_result(&check, &profile, &out)?
    } else {
        None
    };
    if finished {
        // The result stays on screen until the builder has read it.
        terminal.draw(|frame| draw_result(frame, &check, written.as_deref()))?;
        loop {
            if let Event::Key(key) = event::read()?
                && key.kind == KeyEventKind::Press
                && matches!(key.code, KeyCode::Char('q') | KeyCode::Esc | KeyCode::Enter)
            {
                break;
            }
        }
    }
    ratatui::restore();
    for line in summary(&check, written.as_deref()) {
        println!("{line}");
    }
    Ok(match check.outcome() {
        Some(o) if o.faults.is_empty() => 0,
        Some(_) => 1,
        None => 2,
    })
}

/// The 64 squares, rank 8 on top: `#` a piece, `.` empty; walked squares
/// in bold.
fn board_lines(check: &Check) -> Vec<Line<'static>> {
    let live = check.live();
    let walked = check.walked();
    let mut lines = Vec::new();
    for rank in (0..8).rev() {
        let mut spans = vec![Span::raw(format!("{} ", rank + 1))];
        for file in 0..8 {
            let square = Square::from_coords(File::new(file), Rank::new(rank));
            let mark = if live.contains(square) { "#" } else { "." };
            let style = if walked.contains(square) {
                Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
            } else {
                Style::default()
            };
            spans.push(Span::styled(mark.to_string(), style));
            spans.push(Span::raw(" "));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::from("  a b c d e f g h"));
    lines
}

fn draw(frame: &mut ratatui::Frame, check: &Check, profile: &BoardProfile) {
    let [left, right] =
        Layout::horizontal([Constraint::Length(22), Constraint::Min(30)]).areas(frame.area());
    frame.render_widget(
        Paragraph::new(board_lines(check)).block(Block::bordered().title(" board ")),
        left,
    );
    let mut lines = vec![
        Line::from(Span::styled(
            check.step().title(),
            Style::default().add_modifier(Modifier::BOLD),
        )),
        Line::from(check.prompt()),
    ];
    if let Some(message) = check.message() {
        lines.push(Line::from(format!("! {message}")));
    }
    lines.push(Line::from(""));
    lines.push(Line::from("Found so far:"));
    for finding in check.findings() {
        lines.push(Line::from(format!("- {finding}")));
    }
    lines.push(Line::from(""));
    lines.push(Line::from("Enter: done   s: skip   q: quit"));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(format!(" touchmove board check: {} ", profile.name))),
        right,
    );
}

fn draw_result(frame: &mut ratatui::Frame, check: &Check, written: Option<&Path>) {
    let mut lines: Vec<Line> = summary(check, written)
        .into_iter()
        .map(Line::from)
        .collect();
    lines.push(Line::from(""));
    lines.push(Line::from("Press q to leave."));
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(Block::bordered().title(" touchmove board check: result ")),
        frame.area(),
    );
}
