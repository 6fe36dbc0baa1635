//! What explains a board that no single move of the hands does: a piece
//! of the last move moved on (4.6 of 2005, 4.7 of 2023, 4.4b), a takeback
//! (casual play), a move still in progress, moves the sensors did not read
//! — or nothing, which is an illegal move (7.4 of 2005, 7.5 of 2023) or a
//! displaced board (7.3; 7.4 of 2023).

use super::*;

/// How many plies the hands must be seen making after plies nobody saw
/// before the record follows them ([`Inference::resync`]).
const PLAYED_ON_PLIES: usize = 2;

/// The most plies nobody saw that [`Inference::resync`] reads before plies
/// the hands were seen making, and the most squares their board may
/// differ in from the record's.
const MAX_UNSEEN: usize = 4;
const JUMP_SQUARES: usize = 8;

/// The most plies [`Inference::played_on_out_of_turn`] reads: the two
/// plies the players made since the record lost their turn, and as many
/// more.
const OUT_OF_TURN_PLIES: usize = 4;

/// The most plies the hands were seen making after a capture quicker than
/// a scan, before the next mover's hand at work
/// ([`Inference::missed_reply_then_hand_at_work`]).
const PLAYED_ON_AT_WORK_PLIES: usize = 2;

/// The most plies [`Inference::explain_missed_captures`] reads at a
/// settle: a capture nobody saw and its answer.
pub(super) const MISSED_CAPTURE_PLIES: usize = 2;

/// What the second ply of a missed move and its reply must show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reply {
    /// Any legal reply whose piece was seen lifted.
    Any,
    /// A reply seen made: a capture's captured square busy after the
    /// capturing piece was lifted. At the mover's own press the reply is
    /// the next mover's, who has not pressed: a piece of his still in the
    /// air took nothing yet.
    SeenMade,
    /// [`Reply::Any`], at the mover's press: a reply whose pieces have not
    /// stood on their squares for [`two_hands::RELEASE_MIN_MS`] may be a
    /// piece sliding on, so the move without it is a line too.
    Stood,
}

impl Inference {
    /// A piece of the last move lifted again and put elsewhere. FIDE: the
    /// first move stands (4.6 of 2005, 4.7 of 2023; after rook-first
    /// castling 4.4b); casual: the move is corrected.
    pub(super) fn moved_on(&mut self, t: Millis, board: Bitboard) -> bool {
        let Some((last, correction)) = self.moved_on_by_the_mover(board) else {
            return false;
        };
        let side = last.before.turn();
        if self.profile.is_fide() {
            let article = if correction.is_castle() {
                "4.4b"
            } else if self.profile.edition() == LawEdition::Fide2005 {
                "4.6"
            } else {
                "4.7"
            };
            let square = if correction.is_castle() {
                last.mv.from().unwrap_or(last.mv.to())
            } else {
                last.mv.to()
            };
            self.emit(
                t,
                EventKind::TouchMove {
                    side: side.into(),
                    article: article.to_owned(),
                    square,
                },
            );
            let expected = self.game.position().board().occupied();
            self.displaced(t, (board ^ expected).into_iter().collect(), Vec::new());
        } else {
            if !self.take_back_to_correct(t) {
                return false;
            }
            self.make_move(t, correction);
        }
        true
    }

    /// Casual play: the last move taken back to be corrected (its
    /// `takeback` event), no press awaited for it. False when it cannot be.
    fn take_back_to_correct(&mut self, t: Millis) -> bool {
        if self.game.take_back(1).is_err() {
            return false;
        }
        self.emit(
            t,
            EventKind::Takeback {
                ply: self.game.ply(),
                fen: self.game.fen(),
            },
        );
        self.awaiting_press = None;
        true
    }

    /// Casual play under two hands (1.1): the mover's hand moved his last
    /// move on into another (the king of rook-first castling set down
    /// after the rook's move was made), and the next mover lifted a piece
    /// before that board settled. With his pieces back, `board` shows the
    /// corrected move: it is made, released by his lift, as
    /// [`Self::moved_on`] makes it with no other hand at work.
    pub(super) fn moved_on_under_lifts(&mut self, t: Millis, board: Bitboard) -> bool {
        if self.profile.is_fide() {
            return false;
        }
        let Some(last) = self.last_move.clone() else {
            return false;
        };
        if self.game.moves().last().map(|m| m.mv) != Some(last.mv) {
            return false;
        }
        // (Casual play records no touches: the hands are read from the
        // squares emptied this turn.)
        let removals = &self.turn.removals;
        let placements = &self.turn.placements;
        let recorded = self.game.position().board().occupied();
        let found = last.before.legal_moves().into_iter().find_map(|m| {
            // The mover's hand lifted the pieces the correction moves and
            // his move did not, and set them down; every square emptied
            // after that is the next mover's hand at work (his pieces
            // lifted, or the mover's taken to capture), every one before
            // it the mover's, of those pieces.
            if m == last.mv {
                return None;
            }
            let (lifted, release) = self.corrected_by_hand(&last, &m)?;
            // (A piece set down and rocking on its new square is no lift.)
            let before: Bitboard = removals
                .iter()
                .filter(|(at, s)| *at <= release && recorded.contains(*s))
                .map(|(_, s)| *s)
                .collect();
            let gone: Bitboard = removals
                .iter()
                .filter(|(at, s)| *at > release && recorded.contains(*s) && !board.contains(*s))
                .map(|(_, s)| *s)
                .collect();
            // (His piece may stand on its new square already.)
            let corrected = occupancy_after(&last.before, &m);
            let his: Bitboard = placements
                .iter()
                .filter(|(at, s)| *at > release && board.contains(*s) && !corrected.contains(*s))
                .map(|(_, s)| *s)
                .collect();
            (gone.any() && (before & !lifted).is_empty() && corrected == (board | gone) & !his)
                .then_some((m, gone, release))
        });
        let Some((correction, gone, release)) = found else {
            return false;
        };
        if !self.take_back_to_correct(t) {
            return false;
        }
        self.make_now_under_lifts(
            t,
            two_hands::MadeUnder {
                mv: correction,
                gone,
                release,
                unseen: false,
                flickered: false,
            },
        );
        // The next mover's move may be on the board already.
        if board != self.game.position().board().occupied() {
            self.make_what_the_hands_did(t, board, false, false, None);
        }
        true
    }

    /// Whether the mover's hand was seen correcting `last` into
    /// `correction`: the pieces the correction moves and his move did not
    /// lifted this turn (the king of rook-first castling), and a piece set
    /// down on every square it reaches and his move did not. Those pieces,
    /// and when the last of them was set down (the correction's release).
    pub(super) fn corrected_by_hand(
        &self,
        last: &LastMove,
        correction: &Move,
    ) -> Option<(Bitboard, Millis)> {
        let lifted = moving_from(correction) & !moving_from(&last.mv);
        let reached =
            arrival_squares(&last.before, correction) & !arrival_squares(&last.before, &last.mv);
        if lifted.is_empty() || reached.is_empty() || (lifted & !self.turn.lifts).any() {
            return None;
        }
        let release = reached
            .into_iter()
            .map(|s| self.turn.placed_at[s as usize])
            .collect::<Option<Vec<Millis>>>()?
            .into_iter()
            .max()?;
        Some((lifted, release))
    }

    /// The last move and the move `board` shows instead of it, made by
    /// the mover's hand alone since: pieces of his that the correction
    /// moves (without a clock his move was completed when it settled, so
    /// his king lifted to castle after the rook reads as a touch). A touch
    /// of the next mover's makes it his turn.
    pub(super) fn moved_on_by_the_mover(&self, board: Bitboard) -> Option<(LastMove, Move)> {
        let last = self.last_move.clone()?;
        let correction = self.correction_of(&last, board)?;
        let side = last.before.turn();
        self.turn
            .touches
            .iter()
            .all(|x| x.piece.color == side && moving_from(&correction).contains(x.square))
            .then_some((last, correction))
    }

    /// Another move of the last move's pieces that `board` shows instead
    /// of it, while it is still the last one recorded.
    fn correction_of(&self, last: &LastMove, board: Bitboard) -> Option<Move> {
        if self.game.moves().last().map(|m| m.mv) != Some(last.mv) {
            return None;
        }
        last.before.legal_moves().into_iter().find(|m| {
            *m != last.mv
                && !(moving_from(m) & moving_from(&last.mv)).is_empty()
                && occupancy_after(&last.before, m) == board
        })
    }

    /// Casual play: the rook of rook-first castling, set down, ended the
    /// game by the position (its move mated or stalemated, 5.1a, 5.2a);
    /// the king then came beside it. The hands castled: the rook's move
    /// is corrected as [`Self::moved_on`] corrects it in a game going on.
    pub(super) fn castled_after_the_game_ended(&mut self, t: Millis, board: Bitboard) -> bool {
        if self.profile.is_fide() || !self.game.position().is_game_over() {
            return false;
        }
        let castled = self
            .last_move
            .as_ref()
            .and_then(|last| self.correction_of(last, board))
            .is_some_and(|m| m.is_castle());
        castled && self.moved_on(t, board)
    }

    /// Casual play: the board shows an earlier position of the game.
    pub(super) fn taken_back(&mut self, t: Millis, board: Bitboard) -> bool {
        if !self.profile.allows_takeback() {
            return false;
        }
        for n in 1..=self.game.ply().min(2) {
            let Some(before) = self.game.position_before(n) else {
                break;
            };
            if before.board().occupied() == board
                && self.white.is_none_or(|w| w == before.board().white())
            {
                if self.game.take_back(n).is_err() {
                    return false;
                }
                self.turn = TurnHands::default();
                self.awaiting_press = None;
                self.last_move = None;
                self.emit(
                    t,
                    EventKind::Takeback {
                        ply: self.game.ply(),
                        fen: self.game.fen(),
                    },
                );
                return true;
            }
        }
        false
    }

    /// A move in progress explains the board: pieces in the hand that may
    /// be moved or captured, or part of one legal move done (a king beside
    /// its rook when castling, a pawn on the en passant square before the
    /// captured pawn is taken away).
    pub(super) fn in_progress(&self, board: Bitboard) -> bool {
        in_progress_at(self.game.position(), board)
    }

    /// The board jumped (several squares changed unseen): the moves made
    /// meanwhile. One line is adopted; several (or one line while a move
    /// in progress also explains the board) are kept as hypotheses.
    pub(super) fn explain_jump(&mut self, t: Millis, board: Bitboard, unread: bool) -> bool {
        let seen = if unread { Seen::Unread } else { Seen::Any };
        self.explain_within(t, board, self.config.max_missed_plies, seen)
    }

    /// Pieces gone and nothing moving, without a jump: captures the sensors
    /// missed (the captured piece never read empty), perhaps answered. Only
    /// lines that move pieces seen lifted: a piece knocked off the board is
    /// not a capture by a piece nobody touched and a promotion onto the
    /// square it left. At most `max_plies`: [`MISSED_CAPTURE_PLIES`] at a
    /// settle; once the hands have held their pieces longer than a hand
    /// holds one (see `HELD_MS`), as many as a jump may hide (the players
    /// may have played on after the capture nobody saw, every ply by hands
    /// the sensors read: never stuck).
    pub(super) fn explain_missed_captures(
        &mut self,
        t: Millis,
        board: Bitboard,
        max_plies: usize,
    ) -> bool {
        self.explain_within(t, board, max_plies, Seen::OnlyLifted)
    }

    /// [`Inference::explain_jump`] with at most `max_plies`, the lines
    /// moving the pieces `seen` allows.
    fn explain_within(&mut self, t: Millis, board: Bitboard, max_plies: usize, seen: Seen) -> bool {
        let pos = self.game.position().clone();
        // A hand at work (pieces in the air that may move or be taken)
        // explains the board too. On a board read again after a restart,
        // where it lifted one or two pieces, only short direct lines
        // compete with it, not tempo moves out and back.
        let changed = (board ^ pos.board().occupied()).count();
        // (Not a whole move whose piece left and arrived in one scan: no
        // hand is that fast.)
        let in_hand = in_progress_at(&pos, board)
            && !pos.legal_moves().iter().any(|m| {
                occupancy_after(&pos, m) == board
                    && self.turn.unseen_in_one_scan(m, self.fine_scans())
            });
        // Read again after the daemon was down: most often a hand was at
        // work when it stopped.
        let resumed = std::mem::take(&mut self.read_again);
        let mut lines = if in_hand && changed <= 2 && resumed {
            missed::explanations(
                &pos,
                board,
                self.white,
                max_plies.min(2),
                missed::Roam::Never,
            )
        } else {
            missed::explanations(&pos, board, self.white, max_plies, missed::Roam::Short)
        };
        let mut on_probation = Vec::new();
        let mut at_work = Vec::new();
        if seen == Seen::OnlyLifted {
            let lifted = self.turn.seen();
            lines.retain(|line| line.iter().all(|m| (moving_from(m) & !lifted).is_empty()));
        } else if !resumed {
            // Nobody saw the hands: the plies may also have been two more,
            // with the same side to move (kept on probation).
            on_probation = missed::two_plies_longer(&pos, board, self.white, &lines, max_plies);
            // Or one more, with the other side to move. (Not where pieces
            // are only missing that a hand at work may hold: a piece
            // lifted is no tempo line.)
            if (board & !pos.board().occupied()).any() || !in_hand {
                let longer =
                    missed::with_the_other_side_to_move(&pos, board, self.white, &lines, max_plies);
                lines.extend(longer);
            }
            // Or fewer, the sensors read again while the next mover's hand
            // held a piece (fast hands, 1.1).
            at_work = self.hands_at_work(t, &pos, board, &lines, max_plies, seen == Seen::Unread);
            // Or the plies but the last, a capture, its capturing piece
            // still in the hand. (Not where a hand at work explains the
            // board with no ply missed: a line of plies and a hand at
            // work after them is one no later move contradicts.)
            if seen == Seen::Unread && !in_hand {
                self.capturer_at_work(t, &pos, board, &lines, &mut at_work);
            }
            // Or the hand at work the jump's first reading caught then
            // set its piece down: the plies, then its move (never stuck).
            if lines.is_empty() && at_work.is_empty() {
                lines = self.landed_after_the_jump(&pos, board, max_plies);
            }
        }
        if resumed {
            // Read again after a restart: a move made while the daemon was
            // down, and the next mover's hand already at work (his pieces
            // off the board, nothing else changed). First, before longer
            // lines.
            let mut first: Vec<Vec<Move>> = pos
                .legal_moves()
                .into_iter()
                .filter(|m| {
                    let after = occupancy_after(&pos, m);
                    (moving_from(m) & board).is_empty()
                        && (arrival_squares(&pos, m) & after & !board).is_empty()
                        && (board & !after).is_empty()
                        && after != board
                        && {
                            let mut p = pos.clone();
                            p.play_unchecked(*m);
                            in_progress_at(&p, board)
                        }
                })
                .map(|m| vec![m])
                .filter(|l| !lines.contains(l))
                .collect();
            first.append(&mut lines);
            lines = first;
        }
        // Every line ends with a piece still sliding (4.6: a piece that
        // has not stood made no move): the plies before it, and a hand at
        // work sliding that piece (the next mover's, 1.1) since it left
        // its square; where it stops tells its move. (Not after a reading
        // the sensors missed, where a whole ply reads in one scan.)
        if seen != Seen::Unread
            && at_work.is_empty()
            && lines
                .iter()
                .all(|line| line.last().is_some_and(|m| self.turn.sliding_on(m, t)))
        {
            for line in std::mem::take(&mut lines) {
                let Some((last, before)) = line.split_last() else {
                    continue;
                };
                let read = last
                    .from()
                    .and_then(|f| self.turn.lifted_at[f as usize])
                    .unwrap_or(t);
                if !at_work.iter().any(|(l, _)| l.as_slice() == before) {
                    at_work.push((before.to_vec(), read));
                }
            }
        }
        if lines.is_empty() && at_work.is_empty() {
            return false;
        }
        if in_hand {
            // Nothing missed, a hand at work: also a hypothesis, and the
            // first (never cut off by the bound on open lines).
            lines.insert(0, Vec::new());
        }
        // On a board read again after a restart, where the players' hands
        // were most likely at work: fewer plies, and a hand at work after
        // them (a line ending in a capture whose captured piece never left
        // its square leaves the same board as the capturing piece still in
        // the hand).
        let mut shorter: Vec<Vec<Move>> = Vec::new();
        for line in lines.iter().filter(|_| resumed) {
            let mut p = pos.clone();
            for k in 1..line.len() {
                p.play_unchecked(line[k - 1]);
                let prefix = &line[..k];
                // (Pieces only missing: a piece set down is a ply of the line.)
                if (board & !p.board().occupied()).is_empty()
                    && in_progress_at(&p, board)
                    && !lines.iter().chain(&shorter).any(|l| l == prefix)
                {
                    shorter.push(prefix.to_vec());
                }
            }
        }
        lines.extend(shorter);
        self.hypothesise_with_longer(t, lines, on_probation, at_work);
        true
    }

    /// Lines of fewer plies than `lines` after which the sensors were read
    /// while the next mover's hand held a piece (fast hands, 1.1): kept
    /// where such a hand explains `board`; where it lands tells. Each with
    /// the time the lines were read from (before the hand's first lift).
    /// The held piece's square: one the jump emptied, or after a jump the
    /// sensors did not read (`unread`) also one a piece the jump moved
    /// could reach, empty in the record and on the board.
    pub(super) fn hands_at_work(
        &self,
        t: Millis,
        pos: &Chess,
        board: Bitboard,
        lines: &[Vec<Move>],
        max_plies: usize,
        unread: bool,
    ) -> Vec<(Vec<Move>, Millis)> {
        let emptied = pos.board().occupied() & !board;
        // (The hand's pieces were lifted since the board was read again:
        // the lines read from that reading, or `t`.)
        let read = self.turn.first_lift_of(emptied).unwrap_or(t);
        let in_hand = |found: Vec<Vec<Move>>| -> Vec<Vec<Move>> {
            found
                .into_iter()
                .filter(|line| in_progress_at(&hypotheses::play_line(pos, line), board))
                .collect()
        };
        let mut held = in_hand(missed::with_a_hand_at_work(
            pos, board, self.white, lines, emptied, max_plies,
        ));
        // Or two pieces of his in the hand (castling, his king and rook
        // both lifted: `...g6` read in one scan, then White's hand on e1
        // and a1), in fewer plies than any line above (else a line of
        // five plies moving pieces nobody touched stood alone for it).
        // (Not a capture at work, the captured piece his opponent's: at
        // a jump that reads as one more often than it is one.)
        if (2..=JUMP_SQUARES).contains(&emptied.count()) {
            let fewest = lines
                .iter()
                .chain(&held)
                .map(Vec::len)
                .min()
                .unwrap_or(max_plies + 1);
            let two: Vec<Vec<Move>> = in_hand(missed::with_two_pieces_in_the_hand(
                pos,
                board,
                self.white,
                emptied,
                fewest.saturating_sub(1).min(max_plies),
            ))
            .into_iter()
            .filter(|line| {
                let end = hypotheses::play_line(pos, line);
                (end.board().occupied() & !board & !end.us()).is_empty()
            })
            .collect();
            if !two.is_empty() {
                held = two;
            }
        }
        if unread {
            // Or on a square one of the jump's pieces went to, empty in
            // the record too (`...Kd5 Re5+` unread, the king lifted from
            // d5 again; `...Rae8 Nd4 ...Qg6`, White's hand taking the
            // rook off e8).
            let occupied = pos.board().occupied();
            // (A pawn goes by its pushes as well as its captures:
            // `...b5` unread, the pawn lifted from b5 again.)
            let reach = emptied
                .into_iter()
                .filter_map(|s| {
                    let piece = pos.board().piece_at(s)?;
                    Some(
                        shakmaty::attacks::attacks(s, piece, occupied)
                            | pushes(s, piece, Bitboard::EMPTY),
                    )
                })
                .fold(Bitboard::EMPTY, |a, b| a | b)
                & !occupied
                & !board;
            for line in in_hand(missed::with_a_hand_at_work(
                pos, board, self.white, lines, reach, max_plies,
            )) {
                if !held.contains(&line) {
                    held.push(line);
                }
            }
        }
        let mut at_work: Vec<(Vec<Move>, Millis)> = held
            .into_iter()
            .map(|line| (line, read.saturating_sub(1)))
            .collect();
        // Or the plies that explain the board the jump was first read
        // as, a piece it set down lifted again at once (the next
        // mover's hand) before the reading settled.
        for &jumped in self.raw_jumps.iter().filter(|&&b| b != board) {
            for line in
                missed::explanations(pos, jumped, self.white, max_plies, missed::Roam::Short)
            {
                let end = hypotheses::play_line(pos, &line);
                if (end.board().occupied() & !board).any()
                    && in_progress_at(&end, board)
                    && !lines.contains(&line)
                    && !at_work.iter().any(|(l, _)| *l == line)
                {
                    at_work.push((line, read.saturating_sub(1)));
                }
            }
        }
        at_work
    }

    /// After a jump the sensors did not read, lines' plies but their
    /// last, a capture, with the capturing piece still in the hand (it
    /// leaves the board its capture leaves: the captured piece's square
    /// reads occupied either way), beside `at_work` (see
    /// [`Self::hands_at_work`]): where it lands tells. Only while they
    /// leave room for every line under [`hypotheses::MAX_LINES`].
    fn capturer_at_work(
        &self,
        t: Millis,
        pos: &Chess,
        board: Bitboard,
        lines: &[Vec<Move>],
        at_work: &mut Vec<(Vec<Move>, Millis)>,
    ) {
        // (As for [`Self::hands_at_work`]: read from the jump's reading.)
        let read = self
            .turn
            .first_lift_of(pos.board().occupied() & !board)
            .unwrap_or(t);
        let mut held: Vec<(Vec<Move>, Millis)> = Vec::new();
        for line in lines {
            let Some((last, before)) = line.split_last() else {
                continue;
            };
            if !last.is_capture() || before.is_empty() {
                continue;
            }
            let p = hypotheses::play_line(pos, before);
            if (board & !p.board().occupied()).is_empty()
                && in_progress_at(&p, board)
                && !lines.iter().any(|l| l == before)
                && !at_work.iter().chain(&held).any(|(l, _)| l == before)
            {
                held.push((before.to_vec(), read.saturating_sub(1)));
            }
        }
        if lines.len() + at_work.len() + held.len() <= hypotheses::MAX_LINES {
            at_work.extend(held);
        }
    }

    /// Lines of the plies of a jump and the move of the hand its first
    /// reading caught at work (see [`missed::with_a_hand_landed`]), from
    /// each raw reading of the jump kept.
    fn landed_after_the_jump(
        &self,
        pos: &Chess,
        board: Bitboard,
        max_plies: usize,
    ) -> Vec<Vec<Move>> {
        let mut lines: Vec<Vec<Move>> = Vec::new();
        for &raw in self.raw_jumps.iter().filter(|&&b| b != board) {
            for line in missed::with_a_hand_landed(pos, raw, board, self.white, max_plies) {
                if !lines.contains(&line) {
                    lines.push(line);
                }
            }
        }
        lines
    }

    /// Never stuck: the board, after an alert, shows a position that a
    /// move of the hands or a short line of legal plies explains (no
    /// roaming unless the board jumped: the hands were seen). The line is
    /// recorded, the alert closed.
    pub(super) fn resync(&mut self, t: Millis, board: Bitboard, jump: bool) -> bool {
        let cands = self.candidates(board, false);
        // A jump: nobody saw the hands, so a capture quicker than a scan
        // explains the board as well as the move the hands seemed to make;
        // when one does, the lines stay open (certainty first).
        let unseen = self.candidates(board, true);
        let unseen_too = jump && self.pick(&unseen).is_none();
        // A legal move's whole position on the board (its piece set down):
        // no hand holds a piece of it.
        let complete = !unseen.is_empty();
        if !unseen_too && let Some(m) = self.pick(&cands) {
            if m.is_promotion() {
                self.promotion_on_board(t, &m);
                return true;
            }
            // A jump: the move's board may be two plies longer, the same
            // side to move (as for a jump read without an alert).
            if jump {
                let pos = self.game.position().clone();
                let line = vec![vec![m]];
                let max = self.config.max_missed_plies;
                let longer = missed::two_plies_longer(&pos, board, self.white, &line, max);
                if !longer.is_empty() {
                    self.hypothesise_with_longer(t, line, longer, Vec::new());
                    return true;
                }
            }
            self.turn.touches.clear();
            self.make_move(t, m);
            self.restored(t);
            return true;
        }
        let pos = self.game.position().clone();
        // Pieces in the hand (the board being repaired): not yet a position.
        // A jump seen meanwhile still counts at the next look: the pieces
        // gone may be a capture nobody saw (its captured piece never left
        // its square), answered by hands seen later.
        if in_progress_at(&pos, board) && !complete {
            self.jump_in_hand |= jump;
            return false;
        }
        let lines = missed::explanations(
            &pos,
            board,
            self.white,
            self.config.max_missed_plies,
            // Roaming only when the board jumped: nobody saw the hands.
            if jump {
                missed::Roam::Short
            } else {
                missed::Roam::Never
            },
        );
        // Without a jump the hands were seen: every piece a line moves or
        // captures must have been seen lifted (no phantom line of tempo
        // moves; no capture of a piece that never left its square, read
        // while the hand still holds the piece it is repairing with), and
        // the plies made one after the other (a piece lifted long before
        // the opponent's reply was no ply after it).
        let seen = self.turn.seen();
        let mut lines: Vec<Vec<Move>> = lines
            .into_iter()
            .filter(|line| {
                jump || (line.iter().all(|m| (must_lift(m) & !seen).is_empty())
                    && self.made_in_order(&pos, line))
            })
            .collect();
        let mut on_probation = Vec::new();
        let mut at_work = Vec::new();
        if jump {
            let max = self.config.max_missed_plies;
            on_probation = missed::two_plies_longer(&pos, board, self.white, &lines, max);
            let longer = missed::with_the_other_side_to_move(&pos, board, self.white, &lines, max);
            lines.extend(longer);
            // Or fewer, a hand at work since (as for a jump read without an
            // alert): a piece lifted a moment ago is in the air, not taken
            // by plies nobody saw.
            at_work = self.hands_at_work(t, &pos, board, &lines, max, false);
        } else if lines.is_empty() {
            lines = self.played_on_after_unseen_plies(&pos, board);
            // (Not under the Laws: a record a ply off the players' turn
            // would read their next moves as illegal ones, 7.5; there the
            // arbiter settles it, and a jump's lines read on meanwhile.)
            if lines.is_empty() && !self.profile.is_fide() {
                lines = self.played_on_out_of_turn(&pos, board);
            }
        }
        if !jump && self.pressing {
            // At a press, a line's last piece set down a moment ago on an
            // empty square may be sliding on (the next mover's hand, 1.1;
            // a capture's square was emptied for it, no square passed
            // over): the plies before it stand beside, his hand at work
            // (as `explain_missed_reply` reads a reply that has not stood).
            self.add_unsettled_prefixes(t, &pos, &mut lines, false);
        }
        if lines.is_empty() && at_work.is_empty() {
            return false;
        }
        self.hypothesise_with_longer(t, lines, on_probation, at_work);
        true
    }

    /// Never stuck, the last resort when the players played on: the
    /// record has the other side to move from the players (a reading the
    /// sensors could not tell apart, such as a capture quicker than a scan
    /// for a piece's two steps), so they made their plies in the other
    /// order. Short lines whose every piece the hands were seen lifting,
    /// in whatever order: the position is followed again, and the next
    /// moves are read in the players' turn once it is the record's again.
    fn played_on_out_of_turn(&self, pos: &Chess, board: Bitboard) -> Vec<Vec<Move>> {
        let seen = self.turn.seen();
        missed::explanations(
            pos,
            board,
            self.white,
            OUT_OF_TURN_PLIES,
            missed::Roam::Never,
        )
        .into_iter()
        .filter(|line| line.len() > 1 && line.iter().all(|m| (must_lift(m) & !seen).is_empty()))
        .collect()
    }

    /// Never stuck, when the players played on: plies nobody saw (a jump
    /// that changed one square looks like a piece lifted, not like a
    /// jump), then at least [`PLAYED_ON_PLIES`] plies whose hands were
    /// seen — the lifts of each ply's pieces and the placement of each
    /// piece on a square it reached. One seen ply does not do: a piece
    /// knocked off the board while the opponent moved is no missed ply.
    pub(super) fn played_on_after_unseen_plies(
        &self,
        pos: &Chess,
        board: Bitboard,
    ) -> Vec<Vec<Move>> {
        let seen = self.turn.seen();
        let placed = squares_at(&self.turn.placed_at);
        let seen_made = |p: &Chess, m: &Move| {
            (must_lift(m) & !seen).is_empty()
                && (occupancy_after(p, m) & !p.board().occupied() & !placed).is_empty()
        };
        let played_on = |line: &Vec<Move>| {
            let mut p = pos.clone();
            let mut made = Vec::with_capacity(line.len());
            for m in line {
                made.push(seen_made(&p, m));
                p.play_unchecked(*m);
            }
            // The last plies were seen made, in order; at least one ply
            // before them nobody saw (one whose squares a later ply's hands
            // worked looks seen, and may be unseen all the same).
            let seen_after = made.iter().rev().take_while(|&&s| s).count();
            (PLAYED_ON_PLIES..=seen_after.min(line.len().saturating_sub(1))).any(|k| {
                let (unseen, seen) = line.split_at(line.len() - k);
                let end = hypotheses::play_line(pos, unseen);
                self.unseen_before_the_hands(pos, &end, seen) && self.made_in_order(&end, seen)
            })
        };
        let max = self.config.max_missed_plies;
        let mut lines: Vec<Vec<Move>> =
            missed::explanations(pos, board, self.white, max, missed::Roam::Short)
                .into_iter()
                .filter(played_on)
                .collect();
        if !lines.is_empty() {
            return lines;
        }
        // Longer: the unseen plies end on a board read while the alert
        // was open, or before it with pieces off the record (tempo moves
        // out and back among them, which one search of all the plies does
        // not roam that far for), the seen plies follow from there.
        for &jumped in self.held_boards.iter().chain(&self.alert_boards) {
            if (jumped ^ pos.board().occupied()).count() > JUMP_SQUARES {
                continue;
            }
            let mut unseen =
                missed::explanations(pos, jumped, None, MAX_UNSEEN, missed::Roam::Short);
            let longer =
                missed::with_the_other_side_to_move(pos, jumped, None, &unseen, MAX_UNSEEN);
            unseen.extend(longer);
            for first in unseen {
                let end = hypotheses::play_line(pos, &first);
                for then in missed::explanations(&end, board, self.white, max, missed::Roam::Never)
                {
                    let line: Vec<Move> = first.iter().chain(&then).copied().collect();
                    if played_on(&line) && !lines.contains(&line) {
                        lines.push(line);
                    }
                }
            }
            if !lines.is_empty() {
                break;
            }
        }
        lines
    }

    /// Whether plies nobody saw, from `pos` to `end`, came before the
    /// hands were seen making `seen`: every square they emptied or filled
    /// that the sensors saw change, they saw change by the time the first
    /// seen ply's piece was lifted (a piece seen leaving its square later
    /// did not leave it in a ply before).
    fn unseen_before_the_hands(&self, pos: &Chess, end: &Chess, seen: &[Move]) -> bool {
        let Some(began) = seen
            .first()
            .and_then(|m| m.from())
            .and_then(|from| self.turn.first_lift(from))
        else {
            return true;
        };
        let before = pos.board().occupied();
        let after = end.board().occupied();
        let emptied_before = (before & !after)
            .into_iter()
            .all(|s| self.turn.first_lift(s).is_none_or(|at| at <= began));
        let filled_before = (after & !before).into_iter().all(|s| {
            self.turn
                .placements
                .iter()
                .find(|(_, sq)| *sq == s)
                .is_none_or(|(at, _)| *at <= began)
                // (Or a square the first seen ply to land on captures on:
                // the piece that landed there unseen was taken, and the
                // first placement read there is the capturer's.)
                || seen
                    .iter()
                    .find(|m| m.to() == s)
                    .is_some_and(|m| m.is_capture())
        });
        emptied_before && filled_before
    }

    /// Whether the hands made `plies` (from `pos`) one ply after the
    /// other: each ply's piece left its square after the last ply's did,
    /// and was set down on each square it fills after it left and before
    /// the next ply's piece left its square (a piece put there before is
    /// no piece of that ply; one put there after is the next ply's: a
    /// player moves only once the opponent's move is made, 1.1, 4.6).
    pub(super) fn made_in_order(&self, pos: &Chess, plies: &[Move]) -> bool {
        let lifted_from = |m: &Move| m.from().unwrap_or(m.to());
        let mut lifts = Vec::with_capacity(plies.len());
        for m in plies {
            let Some(from) = m.from() else {
                return false;
            };
            let lifted = match lifts.last() {
                None => self.turn.first_lift(from),
                Some(&after) => self.turn.first_lift_after(from, after),
            };
            let Some(lifted) = lifted else {
                return false;
            };
            lifts.push(lifted);
        }
        let mut pos = pos.clone();
        for (i, m) in plies.iter().enumerate() {
            let (lifted, next) = (lifts[i], lifts.get(i + 1).copied());
            let fills = occupancy_after(&pos, m) & !pos.board().occupied();
            let set_down_between = fills.into_iter().all(|sq| {
                // A piece slid next door may close that square's switch a
                // moment before it opens its own.
                let overlap = slide_overlap(lifted_from(m), sq);
                self.turn.placements.iter().any(|&(t, s)| {
                    s == sq
                        && (t > lifted || t.saturating_add(overlap) >= lifted)
                        && next.is_none_or(|n| t < n)
                })
            });
            if !set_down_between {
                return false;
            }
            // A capture's piece set down on the captured square after it
            // was lifted (a settled change there, or its contacts' burst):
            // not a piece that stood untouched since before it.
            let overlap = slide_overlap(lifted_from(m), m.to());
            if m.is_capture()
                && !fills.contains(m.to())
                && !self.turn.captured_square_worked(m.to(), |u| {
                    u.saturating_add(overlap) >= lifted && next.is_none_or(|n| u < n)
                })
            {
                return false;
            }
            pos.play_unchecked(*m);
        }
        true
    }

    /// Whether a capture whose piece the hands were seen lifting, its
    /// captured piece never read gone (quicker than a scan), leaves a
    /// position in which a move in progress, with a piece of the replying
    /// side lifted, explains `board`: the reply is under way.
    pub(super) fn missed_capture_then_in_progress(&self, board: Bitboard) -> bool {
        let pos = self.game.position();
        let seen = self.turn.seen();
        pos.legal_moves().iter().any(|m| {
            m.is_capture() && (moving_from(m) & !seen).is_empty() && board.contains(m.to()) && {
                // (The replying side's hand at work: a piece of his is off
                // the board.)
                let after = hypotheses::play_line(pos, &[*m]);
                (after.board().by_color(after.turn()) & !board).any()
                    && in_progress_at(&after, board)
            }
        })
    }

    /// Lines of plies as the `candidates` of a `displaced` event: UCI,
    /// space-separated.
    pub(super) fn lines_uci(&self, lines: &[Vec<Move>]) -> Vec<String> {
        let mode = self.game.castling_mode();
        lines
            .iter()
            .map(|line| {
                line.iter()
                    .map(|m| m.to_uci(mode).to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    pub(super) fn explain_missed_reply(
        &mut self,
        t: Millis,
        board: Bitboard,
        reply: Reply,
    ) -> bool {
        let lines = self.missed_reply_lines(t, board, reply);
        self.adopt_or_hypothesise(t, lines)
    }

    /// Two hands (1.1) after a capture quicker than a scan: the capture
    /// (its piece seen lifted, the captured piece never read gone; or a
    /// ply whose landing only flickered, its piece taken at once), the
    /// replies seen made (up to [`PLAYED_ON_AT_WORK_PLIES`], each piece
    /// lifted after the one before), and the next mover's hand at work
    /// already, holding a piece of his lifted after the last reply's
    /// (`...Bxc3` answered at once: `Bxc3` read as the bishop lifted from
    /// d2, `...Ne4` set down, White's rook lifted from a1), or two: a
    /// capture at work, the presser's piece taken off and his own lifted
    /// to take there. Read alone, the knight looks like White's bishop landing on
    /// e4, an illegal move; these lines stand beside it, each with the
    /// time before the hand's lift, and where the hand lands tells.
    pub(super) fn missed_reply_then_hand_at_work(
        &self,
        pos: &Chess,
        board: Bitboard,
    ) -> Vec<(Vec<Move>, Millis)> {
        let expected = pos.board().occupied();
        let held = self.turn.lifts & expected & !board;
        if held.is_empty() {
            return Vec::new();
        }
        let seen = self.turn.seen();
        let lifted = |m: &Move| self.turn.first_lift_of(moving_from(m));
        let plies = 1 + PLAYED_ON_AT_WORK_PLIES;
        // (His hand holding one piece, or two: a capture at work, the
        // captured piece taken off and his own lifted.)
        let mut found = missed::with_a_hand_at_work(pos, board, self.white, &[], held, plies);
        found.extend(missed::with_two_pieces_in_the_hand(
            pos, board, self.white, held, plies,
        ));
        found
            .into_iter()
            .filter_map(|line| {
                if line.len() < 2 {
                    return None;
                }
                let end = hypotheses::play_line(pos, &line);
                let hand = held & end.board().occupied() & !board;
                let mut lifts = Vec::with_capacity(line.len() + 1);
                for m in &line {
                    lifts.push(lifted(m)?);
                }
                // The hand's lifts after the last ply's (a square the
                // plies emptied before, the captured piece's, counts from
                // when the hand took its new piece off).
                let last = *lifts.last()?;
                let read = hand
                    .into_iter()
                    .map(|s| self.turn.first_lift_after(s, last))
                    .collect::<Option<Vec<Millis>>>()?
                    .into_iter()
                    .min()?;
                lifts.push(read);
                // The first ply a capture quicker than a scan, or a ply whose
                // landing the filter never let through (its square's
                // contacts toggled after its piece left and before the
                // next ply began: the piece taken off at once).
                let first_seen_landing = || {
                    self.turn.toggles.iter().any(|(x, s)| {
                        *s == line[0].to()
                            && *x
                                > line[0]
                                    .from()
                                    .map_or(lifts[0], |f| self.turn.first_contact(f, lifts[0]))
                            && *x < lifts[1]
                    })
                };
                if !line[0].is_capture() && !first_seen_landing() {
                    return None;
                }
                // The hand is the next mover's: his own pieces, and a
                // piece of the presser's that one of them can take.
                let ours = hand & end.board().by_color(end.turn());
                let ordered = lifts.windows(2).all(|w| w[0] < w[1])
                    && line.iter().all(|m| (moving_from(m) & !seen).is_empty())
                    && ours.any()
                    && (hand & !ours)
                        .into_iter()
                        .all(|y| super::two_hands::taken_by_lifted(&end, y, ours))
                    && in_progress_at(&end, board);
                ordered.then(|| (line, read.saturating_sub(1)))
            })
            .collect()
    }

    /// The lines [`Self::explain_missed_reply`] reads `board` as.
    pub(super) fn missed_reply_lines(
        &self,
        t: Millis,
        board: Bitboard,
        reply: Reply,
    ) -> Vec<Vec<Move>> {
        let pos = self.game.position().clone();
        // Two plies whose pieces the hands were seen lifting (the first
        // a capture whose captured piece never read empty); several such
        // lines are kept open.
        let seen = self.turn.seen();
        let mut lines: Vec<Vec<Move>> =
            missed::explanations(&pos, board, self.white, 2, missed::Roam::Never)
                .into_iter()
                .filter(|line| line.len() == 2)
                .filter(|line| line.iter().all(|m| (moving_from(m) & !seen).is_empty()))
                .filter(|line| reply != Reply::SeenMade || self.hand_made_in(&line[1], &line[..1]))
                .collect();
        if reply == Reply::Stood {
            self.add_unsettled_prefixes(t, &pos, &mut lines, true);
        }
        // Every line reads the hands out of the order they lifted (the
        // reply's piece lifted before the missed ply's): no certainty.
        // Lines one ply longer, the other side to move, whose pieces the
        // hands lifted in order and whose reply they were seen making,
        // stand beside them (never stuck: the next move tells).
        // So too where every line passes over a piece the hands set down
        // on a square empty in the record, let stand and took away again
        // (b4 stood 400 ms: `...b4 a4 ...bxa3`, not `...bxc4 a3`).
        let against = |line: &Vec<Move>| {
            !self.turn.lifted_in_order(line) || self.passes_over_set_downs(&pos, line) > 0
        };
        if !lines.is_empty() && lines.iter().all(against) {
            let max = self.config.max_missed_plies;
            let longer: Vec<Vec<Move>> =
                missed::with_the_other_side_to_move(&pos, board, self.white, &lines, max)
                    .into_iter()
                    .filter(|line| {
                        self.turn.lifted_in_order(line)
                            && line
                                .split_last()
                                .is_some_and(|(last, before)| self.hand_made_in(last, before))
                    })
                    .collect();
            lines.extend(longer);
        }
        lines
    }

    /// Two hands (1.1) and a jump: the player not having the move pressed
    /// (6.7 says his move is made) while only pieces of his are off the
    /// board, and no missed reply seen by the hands explains it. The plies
    /// were made while the sensors did not read them (his opponent's
    /// among them, its squares refilled in the same scan): the lines
    /// ending with his move. Several are kept open; which one, the next
    /// moves tell.
    ///
    /// The same for the player having the move, pressing with none of his
    /// pieces touched and only his opponent's off the board: no move of
    /// his is on the board, yet his press says he made one (6.7). Read
    /// as a piece of the opponent lifted, the press would complete a move
    /// never made (a false accusation, 7.5.3 of 2023); the board is read
    /// as plies the sensors missed, three or more ending with his.
    pub(super) fn explain_jump_pressed_by(
        &mut self,
        t: Millis,
        board: Bitboard,
        presser: Color,
    ) -> bool {
        let pos = self.game.position().clone();
        // Only pieces of the side not having the move gone, as if in a
        // hand (else a settle would have read the jump): for a late press
        // the presser's own, for the mover's press his opponent's; none
        // of the mover's touched (his hand at work is a move in progress).
        let expected = pos.board().occupied();
        let gone = expected & !board;
        if (board & !expected).any()
            || gone.is_empty()
            || !gone.is_subset(pos.board().by_color(pos.turn().other()))
            || self
                .turn
                .touches
                .iter()
                .any(|x| x.piece.color == pos.turn())
        {
            return false;
        }
        let max = self.config.max_missed_plies;
        // Ending with the presser's ply: an even count for the late
        // press, an odd one for the mover's (one ply would have been read
        // as his move).
        let last_is_pressers =
            |len: usize| len > 1 && len.is_multiple_of(2) != (presser == pos.turn());
        let lines: Vec<Vec<Move>> =
            missed::explanations(&pos, board, self.white, max, missed::Roam::Short)
                .into_iter()
                .filter(|line| !line.is_empty() && last_is_pressers(line.len()))
                .collect();
        self.adopt_or_hypothesise(t, lines)
    }

    /// One line is recorded, several are kept open; false when there is
    /// none.
    pub(super) fn adopt_or_hypothesise(&mut self, t: Millis, mut lines: Vec<Vec<Move>>) -> bool {
        match lines.len() {
            0 => false,
            1 => {
                let plies = lines.pop().unwrap_or_default();
                self.adopt(t, plies);
                true
            }
            _ => {
                self.hypothesise(t, lines);
                true
            }
        }
    }

    /// Adds to `lines` (plies from `pos`) each line's plies but its last
    /// where that last ply's pieces have not stood since a release before
    /// `t` (see [`Self::stood`]): they may be sliding on, the next mover's
    /// hand at work (1.1). A last ply that captures counts only with
    /// `captures` (its square was emptied for it: no square passed over).
    pub(super) fn add_unsettled_prefixes(
        &self,
        t: Millis,
        pos: &Chess,
        lines: &mut Vec<Vec<Move>>,
        captures: bool,
    ) {
        let unsettled: Vec<Vec<Move>> = lines
            .iter()
            .filter(|line| line.len() > 1)
            .filter_map(|line| {
                let (last, before) = line.split_last()?;
                let end = hypotheses::play_line(pos, before);
                ((captures || !last.is_capture()) && !self.stood(t, &end, last))
                    .then(|| before.to_vec())
            })
            .collect();
        for before in unsettled {
            if !lines.contains(&before) {
                lines.push(before);
            }
        }
    }

    /// Whether the pieces `m` sets down in `pos` have stood since
    /// [`two_hands::RELEASE_MIN_MS`] before `t` (else they may be sliding
    /// on).
    pub(super) fn stood(&self, t: Millis, pos: &Chess, m: &Move) -> bool {
        arrival_squares(pos, m).into_iter().all(|s| {
            self.turn
                .set_down_at(s)
                .is_some_and(|p| p.saturating_add(two_hands::RELEASE_MIN_MS) <= t)
        })
    }

    /// Records plies the sensors missed, each made and completed at `t`
    /// (later plies were made after them), marked as inferred.
    pub(super) fn adopt(&mut self, t: Millis, plies: Vec<Move>) {
        self.inferring = true;
        let first = self.game.moves().len();
        for m in plies {
            self.turn = TurnHands::default();
            self.make_move(t, m);
            if let Some(ply) = self.awaiting_press.take() {
                self.emit(t, EventKind::MoveCompleted { ply });
            }
            if self.game.is_over() {
                break;
            }
        }
        self.inferring = false;
        let side = self.game.turn();
        if let Some(i) =
            (first..self.game.moves().len()).rfind(|&i| self.game.moves()[i].side == side)
        {
            self.missed_press = Some((i + 1, side));
        }
    }

    /// Nothing explains the board: an illegal move if the player having
    /// the move released one of his touched pieces somewhere, else displaced.
    pub(super) fn unexplained(&mut self, t: Millis, board: Bitboard) {
        let pos = self.game.position();
        let expected = pos.board().occupied();
        let extra = board & !expected;
        let side = pos.turn();
        let from = self
            .turn
            .touches
            .iter()
            .find(|x| x.piece.color == side && !board.contains(x.square))
            .map(|x| x.square);
        if !extra.is_empty() && from.is_some() && self.awaiting_press.is_none() {
            let to = (extra.count() == 1).then(|| extra.first()).flatten();
            self.illegal_not_completed(t, side, from, to);
            return;
        }
        self.displaced(t, (board ^ expected).into_iter().collect(), Vec::new());
    }
}

/// Whether a move in progress in `pos` explains `board` (see
/// [`Inference::in_progress`]).
pub(super) fn in_progress_at(pos: &Chess, board: Bitboard) -> bool {
    in_progress_with(pos, board, false)
}

/// [`in_progress_at`], read at a press: a piece that has left its square
/// may also be passing over one on its way (the next mover's slide caught
/// by the press between two squares, two hands, 1.1).
pub(super) fn in_progress_at_press(pos: &Chess, board: Bitboard) -> bool {
    in_progress_with(pos, board, true)
}

/// [`in_progress_at`], on a board settled under open lines: a piece set
/// down on a square next to its own, its own still read occupied, is no
/// slide in progress (the overlap of a slide's two squares lasts a few
/// milliseconds, not a settle).
pub(super) fn in_progress_settled(pos: &Chess, board: Bitboard) -> bool {
    in_progress_left(pos, board, false, false)
}

fn in_progress_with(pos: &Chess, board: Bitboard, sliding: bool) -> bool {
    in_progress_left(pos, board, sliding, true)
}

fn in_progress_left(pos: &Chess, board: Bitboard, sliding: bool, next_door: bool) -> bool {
    let expected = pos.board().occupied();
    let missing = expected & !board;
    let extra = board & !expected;
    if extra.is_empty() {
        return missing.into_iter().all(|sq| {
            pos.board()
                .color_at(sq)
                .is_some_and(|c| touch::lift_explained(pos, sq, c))
        });
    }
    let diff = board ^ expected;
    pos.legal_moves().iter().any(|m| {
        let arrivals = occupancy_after(pos, m) & !expected;
        // A piece set down where the move goes has left its square, or
        // is sliding from next door (its magnet closes the new square a
        // moment before it opens its own).
        let left = (moving_from(m) & !board).any()
            || next_door
                && m.from().is_some_and(|from| {
                    (extra & !shakmaty::attacks::king_attacks(from)).is_empty()
                });
        let on_the_way = m
            .from()
            .filter(|from| sliding && !board.contains(*from))
            .map_or(Bitboard::EMPTY, |from| {
                shakmaty::attacks::between(from, m.to())
            });
        (diff & !involved(pos, m) & !on_the_way).is_empty()
            && (extra & !arrivals & !on_the_way).is_empty()
            && left
    })
}

/// Which pieces a line of missed plies may move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Any piece (the board jumped: nobody saw the hands).
    Any,
    /// Any piece, the board jumped with the sensors unread (no slide's
    /// step explains it).
    Unread,
    /// Only pieces seen lifted this turn.
    OnlyLifted,
}
