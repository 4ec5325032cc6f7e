//! Games as CGSuite writes them, and as nested JSON.
//!
//! - numbers as reduced fractions: `0`, `-3`, `9/16`, `-55/64`;
//! - nimbers `*`, `*2`, `*7`;
//! - a number plus `k` ups plus a nimber, each part written only when it is not zero, in this
//!   order: `1*`, `^`, `v`, `^*`, `v*`, `^^`, `vv`, `^3`, `v3*`, `1/2^`, `3/4v3*`, `-1^*2`
//!   (`^` is ↑ = `{0|*}`, `v` is ↓, `^^` is ⇑, `^k` is k ups for k ≥ 3), as CGSuite's
//!   `Uptimal` output writes them (`lib/core/.../core/Uptimal.scala`: the up symbol then the
//!   coefficient when above 2; its tests print `^8*2`, `73/16v9*8`, `^^*`, `v5`);
//! - CGSuite's `^[n]` (`↑^[n] = ↑ + ↑² + … + ↑ⁿ`) and `^<n>` (`↑ⁿ`) with a number and a nimber,
//!   as `^[2]*` for `{0,^*|0}` (the string green-blue-blue) — see `tower_form`; CGSuite's
//!   other uptimal expansions (sums of several powers) are printed in braces;
//! - any other game `{A,B|C}` with its canonical options, each printed the same way, nested in
//!   braces (CGSuite's `||` shorthand is not used). Options are listed in CGSuite's order of
//!   classes: numbers in increasing order, then nimbers, then `x + k·↑ + *n` by `(x, k, n)`,
//!   then the others in order of their text, shorter before longer, then alphabetically
//!   (CGSuite orders the last two classes by their uptimal expansions and option lists, so
//!   the order within them can differ). Up to [`MAX_UPS`] ups are recognised; more are
//!   printed in braces.

use std::collections::HashMap;

use serde::Serialize;

use super::{Arena, Dyadic, GameId, Kind, PartizanError};

/// The largest number of ups recognised as `^[k]`.
pub const MAX_UPS: i64 = 64;

/// How much later than its number part a game may be born to be tried as `x + k·↑ + *n`.
pub const UP_FORM_DAYS: u64 = 2 * MAX_UPS as u64 + 32;

/// The largest text [`text`] writes; larger games are summarised.
pub const MAX_TEXT: usize = 1 << 20;

/// A game recognised as `x + k·↑ + *n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpForm {
    /// The number part.
    pub number: Dyadic,
    /// The number of ups (negative: downs).
    pub ups: i64,
    /// The nimber part.
    pub nimber: u64,
}

/// `↑ = {0|*}`.
pub fn up(arena: &mut Arena) -> GameId {
    let star = arena.nimber(1);
    arena.intern(vec![Arena::ZERO], vec![star])
}

/// `x + k·↑ + *n`, if the game is one (`k` at most [`MAX_UPS`] in size). Games born more than
/// [`UP_FORM_DAYS`] days after their number part are not tried (they cannot be of this form
/// with few ups and a small nimber, and trying would add large games).
pub fn up_form(arena: &mut Arena, g: GameId) -> Result<Option<UpForm>, PartizanError> {
    match arena.kind(g) {
        Kind::Number(x) => {
            return Ok(Some(UpForm {
                number: x,
                ups: 0,
                nimber: 0,
            }))
        }
        Kind::Nimber(n) => {
            return Ok(Some(UpForm {
                number: Dyadic::ZERO,
                ups: 0,
                nimber: n,
            }))
        }
        Kind::Other => {}
    }
    let (ls, rs) = arena.stops(g);
    if ls != rs {
        return Ok(None);
    }
    let x = arena.number(ls);
    if arena.birthday(g) > arena.birthday(x) + UP_FORM_DAYS {
        return Ok(None);
    }
    let minus_x = arena.number(ls.checked_neg().ok_or(PartizanError::Overflow)?);
    let mut h = arena.add(g, minus_x)?;
    let up = up(arena);
    let down = arena.neg(up)?;
    let nimber_of = |arena: &Arena, h: GameId| match arena.kind(h) {
        Kind::Nimber(n) => Some(n),
        _ if h == Arena::ZERO => Some(0),
        _ => None,
    };
    let mut ups = 0i64;
    let mut direction = 0i64;
    loop {
        if let Some(n) = nimber_of(arena, h) {
            return Ok(Some(UpForm {
                number: ls,
                ups,
                nimber: n,
            }));
        }
        if ups.abs() >= MAX_UPS {
            return Ok(None);
        }
        let step = match arena.outcome(h) {
            super::Outcome::Left => 1,
            super::Outcome::Right => -1,
            super::Outcome::P => unreachable!("0 is a nimber"),
            super::Outcome::N => {
                // ↑* and ↓* are the confused ones: one more step must reach a nimber.
                for (s, d) in [(1, down), (-1, up)] {
                    let next = arena.add(h, d)?;
                    if let Some(n) = nimber_of(arena, next) {
                        return Ok(Some(UpForm {
                            number: ls,
                            ups: ups + s,
                            nimber: n,
                        }));
                    }
                }
                return Ok(None);
            }
        };
        if direction != 0 && step != direction {
            return Ok(None);
        }
        direction = step;
        h = arena.add(h, if step > 0 { down } else { up })?;
        ups += step;
    }
}

/// The largest `n` tried for `↑^[n]` and `↑^<n>` (CGSuite's `^[n]`, `^<n>`).
pub const MAX_TOWER: usize = 32;

/// CGSuite's `x^[n]*m`, `xv[n]*m`, `x^<n>*m`, `xv<n>*m` (`n ≥ 2`), if the game is one: `x` a
/// number, `*m` a nimber, `↑^[n] = {↑^[n-1] | *}` (so `↑^[n] = ↑ + ↑² + … + ↑ⁿ`, Siegel
/// ch. II.6) and `↑^<n> = {0 | ↓^<n-1>*}` (the powers `↑ⁿ`), both from `↑^[1] = ↑^<1> = ↑`; the
/// constructions are CGSuite's (its tests print `{^|*}` as `^[2]`, `{0,^*|0}` as `^[2]*`,
/// `{0|v*}` as `^<2>`, `{0,*|v}` as `^<2>*`). Games born more than [`MAX_TOWER`] + 2 days
/// after their number part are not tried.
fn tower_form(arena: &mut Arena, g: GameId) -> Result<Option<String>, PartizanError> {
    let (ls, rs) = arena.stops(g);
    if ls != rs {
        return Ok(None);
    }
    let x = arena.number(ls);
    let days = arena.birthday(g).saturating_sub(arena.birthday(x));
    if days > MAX_TOWER as u64 + 2 {
        return Ok(None);
    }
    let minus_x = arena.number(ls.checked_neg().ok_or(PartizanError::Overflow)?);
    let h = arena.add(g, minus_x)?;
    let star = arena.nimber(1);
    let first = up(arena);
    let (mut sum, mut power) = (first, first);
    for n in 2..=(days as usize + 1).min(MAX_TOWER) {
        // ↑^[n] = {↑^[n-1] | *}; ↑^<n> = {0 | ↓^<n-1>*}.
        sum = arena.game(&[sum], &[star])?;
        let down_star = {
            let d = arena.neg(power)?;
            arena.add(d, star)?
        };
        power = arena.game(&[Arena::ZERO], &[down_star])?;
        for (tower, brackets) in [(sum, ('[', ']')), (power, ('<', '>'))] {
            for (sign, arrow) in [(1, '^'), (-1, 'v')] {
                let t = if sign > 0 { tower } else { arena.neg(tower)? };
                let minus_t = arena.neg(t)?;
                let rest = arena.add(h, minus_t)?;
                let nimber = match arena.kind(rest) {
                    Kind::Nimber(m) => m,
                    _ if rest == Arena::ZERO => 0,
                    _ => continue,
                };
                let mut s = String::new();
                if ls != Dyadic::ZERO {
                    s.push_str(&ls.to_string());
                }
                s.push(arrow);
                s.push(brackets.0);
                s.push_str(&n.to_string());
                s.push(brackets.1);
                match nimber {
                    0 => {}
                    1 => s.push('*'),
                    m => s.push_str(&format!("*{m}")),
                }
                return Ok(Some(s));
            }
        }
    }
    Ok(None)
}

fn up_text(f: UpForm) -> String {
    let mut s = String::new();
    if f.number != Dyadic::ZERO || (f.ups == 0 && f.nimber == 0) {
        s.push_str(&f.number.to_string());
    }
    let arrow = if f.ups > 0 { "^" } else { "v" };
    match f.ups.unsigned_abs() {
        0 => {}
        1 => s.push_str(arrow),
        2 => {
            s.push_str(arrow);
            s.push_str(arrow);
        }
        k => s.push_str(&format!("{arrow}{k}")),
    }
    match f.nimber {
        0 => {}
        1 => s.push('*'),
        n => s.push_str(&format!("*{n}")),
    }
    s
}

/// Writes games, remembering each game's text.
struct Printer<'a> {
    arena: &'a mut Arena,
    texts: HashMap<GameId, Option<String>>,
    sizes: HashMap<GameId, usize>,
}

impl Printer<'_> {
    /// An upper bound on the length of the text in braces (numbers and nimbers as written),
    /// saturating at `MAX_TEXT + 1`: a quick refusal before any string is built.
    fn size(&mut self, g: GameId) -> usize {
        match self.arena.kind(g) {
            Kind::Number(x) => return x.to_string().len(),
            Kind::Nimber(n) => return n.to_string().len() + 1,
            Kind::Other => {}
        }
        if let Some(&s) = self.sizes.get(&g) {
            return s;
        }
        let mut s = 3usize;
        for o in self.arena.left(g).iter().chain(self.arena.right(g).iter()) {
            s = s.saturating_add(self.size(*o) + 1).min(MAX_TEXT + 1);
            if s > MAX_TEXT {
                // Too long already: the other options need not be measured.
                break;
            }
        }
        self.sizes.insert(g, s);
        s
    }

    /// The text, or `None` if it would exceed [`MAX_TEXT`].
    fn text(&mut self, g: GameId) -> Result<Option<String>, PartizanError> {
        if let Some(t) = self.texts.get(&g) {
            return Ok(t.clone());
        }
        if self.size(g) > MAX_TEXT {
            self.texts.insert(g, None);
            return Ok(None);
        }
        let t = match up_form(self.arena, g)? {
            Some(f) => Some(up_text(f)),
            None => match tower_form(self.arena, g)? {
                Some(t) => Some(t),
                None => self.braces(g)?,
            },
        };
        self.texts.insert(g, t.clone());
        Ok(t)
    }

    /// The class of an option in CGSuite's order: numbers by value, then nimbers by size, then
    /// `x + k·↑ + *n` by `(x, k, n)`, then the rest (by text).
    fn rank(&mut self, g: GameId) -> Result<(u8, Dyadic, i64, u64), PartizanError> {
        Ok(match self.arena.kind(g) {
            Kind::Number(x) => (0, x, 0, 0),
            Kind::Nimber(n) => (1, Dyadic::ZERO, 0, n),
            Kind::Other => match up_form(self.arena, g)? {
                Some(f) => (2, f.number, f.ups, f.nimber),
                None => (3, Dyadic::ZERO, 0, 0),
            },
        })
    }

    fn braces(&mut self, g: GameId) -> Result<Option<String>, PartizanError> {
        let mut s = String::from("{");
        let left = self.arena.left(g);
        let right = self.arena.right(g);
        for (side, opts) in [(0, left), (1, right)] {
            if side == 1 {
                s.push('|');
            }
            let mut items = Vec::new();
            for &o in opts.iter() {
                let Some(t) = self.text(o)? else {
                    return Ok(None);
                };
                items.push((self.rank(o)?, t));
            }
            items.sort_by(|(ra, ta), (rb, tb)| {
                ra.cmp(rb).then_with(|| (ta.len(), ta).cmp(&(tb.len(), tb)))
            });
            for (i, (_, t)) in items.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(t);
                if s.len() > MAX_TEXT {
                    return Ok(None);
                }
            }
        }
        s.push('}');
        Ok(Some(s))
    }
}

/// The game in CGSuite's notation (see the module text), or `None` if the text would be longer
/// than [`MAX_TEXT`] characters.
pub fn text(arena: &mut Arena, g: GameId) -> Result<Option<String>, PartizanError> {
    Printer {
        arena,
        texts: HashMap::new(),
        sizes: HashMap::new(),
    }
    .text(g)
}

/// The largest number of nodes [`form_json`] writes (as a tree, shared subgames repeated).
pub const MAX_JSON_NODES: usize = 20_000;

/// The deepest nesting [`form_json`] writes (Python's `json` refuses deeper documents).
pub const MAX_JSON_DEPTH: usize = 200;

/// A canonical form as a tree, for JSON: `{"value": TEXT, "left": [...], "right": [...]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Form {
    /// The game in CGSuite's notation.
    pub value: String,
    /// Left's options, in the printing order.
    pub left: Vec<Form>,
    /// Right's options.
    pub right: Vec<Form>,
}

/// The canonical form as nested [`Form`]s; `None` if it has more than [`MAX_JSON_NODES`]
/// nodes or is deeper than [`MAX_JSON_DEPTH`].
pub fn form_json(arena: &mut Arena, g: GameId) -> Result<Option<Form>, PartizanError> {
    let mut p = Printer {
        arena,
        texts: HashMap::new(),
        sizes: HashMap::new(),
    };
    let mut nodes = 0usize;
    fn build(
        p: &mut Printer<'_>,
        g: GameId,
        depth: usize,
        nodes: &mut usize,
    ) -> Result<Option<Form>, PartizanError> {
        *nodes += 1;
        if *nodes > MAX_JSON_NODES || depth > MAX_JSON_DEPTH {
            return Ok(None);
        }
        // *n has n options on each side: refuse before making them.
        if let Kind::Nimber(n) = p.arena.kind(g) {
            if n > (MAX_JSON_NODES - *nodes) as u64 {
                return Ok(None);
            }
        }
        let Some(text) = p.text(g)? else {
            return Ok(None);
        };
        let mut sides = Vec::new();
        for opts in [p.arena.left(g), p.arena.right(g)] {
            let mut items = Vec::new();
            for &o in opts.iter() {
                let Some(t) = p.text(o)? else {
                    return Ok(None);
                };
                items.push((p.arena.as_number(o), t, o));
            }
            items.sort_by(|(xa, ta, _), (xb, tb, _)| match (xa, xb) {
                (Some(a), Some(b)) => a.cmp(b),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => (ta.len(), ta).cmp(&(tb.len(), tb)),
            });
            let mut out = Vec::new();
            for (_, _, o) in items {
                let Some(v) = build(p, o, depth + 1, nodes)? else {
                    return Ok(None);
                };
                out.push(v);
            }
            sides.push(out);
        }
        let right = sides.pop().expect("two sides");
        let left = sides.pop().expect("two sides");
        Ok(Some(Form {
            value: text,
            left,
            right,
        }))
    }
    build(&mut p, g, 0, &mut nodes)
}
