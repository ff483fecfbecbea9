//! Launch configurations read from the host side of a CUDA source file: for
//! each kernel launch, which kernel it launches and, when they are
//! compile-time constants, its grid and block shapes. The analysis needs the
//! block shape the program really launches with; without one it assumes
//! 256x1x1, which is often wrong.
//!
//! This reads text, not a C++ syntax tree. Comments and string literals are
//! blanked, the rest is cut into tokens, and two launch forms are recognised:
//! `kernel<<<grid, block, ...>>>(...)` and `cudaLaunchKernel(kernel, grid,
//! block, ...)` (also `cudaLaunchCooperativeKernel`, same argument order). A
//! launch argument is evaluated over integer literals, `+ - * / % << >> & | ^`,
//! parentheses, integer casts, and names bound by object-like `#define`s,
//! `const`/`constexpr` integer declarations, enum constants and `dim3`
//! variables. Anything else (a runtime variable, a function or `constexpr`
//! function call, `sizeof`, a template parameter, a function-like macro)
//! leaves that shape `None`: an unknown shape is reported as unknown, never
//! guessed.
//!
//! Deliberately not done: `#include` (names defined in headers stay unknown),
//! macro arguments, `#if` other than `#if 0`, typedefs, control flow, and C++
//! scoping. A name resolves to its nearest binding earlier in the text; that is
//! exact for `#define` and for one declaration per function, and wrong only
//! when a launch uses an outer name after an inner block that redeclared it has
//! closed. Pure: no I/O and no LLVM.

use std::collections::HashMap;

/// A grid or block shape (CUDA's `dim3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

impl Shape {
    /// Threads in a block of this shape, or blocks in a grid; `None` if that
    /// does not fit in 64 bits.
    pub fn count(self) -> Option<u64> {
        u64::from(self.x)
            .checked_mul(u64::from(self.y))?
            .checked_mul(u64::from(self.z))
    }
}

/// One kernel launch found in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The kernel's name as written at the launch, without template arguments
    /// or namespace qualifiers: `ns::k<float>` is `k`.
    pub kernel: String,
    /// `None` when any dimension is not a compile-time constant, or the shape
    /// is not one CUDA can launch.
    pub grid: Option<Shape>,
    pub block: Option<Shape>,
    /// 1-based line of the kernel's name (of the call, for `cudaLaunchKernel`).
    pub line: u32,
}

/// Launch limits, the same for every compute capability since 3.0 (CUDA C++
/// Programming Guide, "Technical Specifications per Compute Capability"): a
/// launch outside them fails, so it cannot be the shape the program runs with.
const MAX_THREADS_PER_BLOCK: u64 = 1024;
const MAX_BLOCK_Z: u32 = 64;
const MAX_GRID_X: u32 = (1 << 31) - 1;
const MAX_GRID_YZ: u32 = 65535;

/// Longest run of tokens a launch configuration, template argument list or
/// initializer is searched over. Real ones are a few dozen tokens; the cap
/// keeps input such as thousands of unclosed `<<<` from taking quadratic time.
const MAX_SPAN: usize = 4096;
/// How many names deep a value may be defined through other names; this also
/// ends cycles such as `#define A B` with `#define B A`.
const MAX_NAME_DEPTH: u32 = 32;
/// How deeply parentheses and unary operators may nest in one expression, so
/// that evaluation's recursion stays far from the end of the stack.
const MAX_NESTING: u32 = 256;

/// The runtime API calls that take `(kernel, grid, block, args, shmem, stream)`
/// (CUDA Runtime API reference, "Execution Control").
const LAUNCH_CALLS: &[&str] = &["cudaLaunchKernel", "cudaLaunchCooperativeKernel"];
/// Words that may spell an integer type in a declaration or a cast.
const INTEGER_TYPES: &[&str] = &[
    "int",
    "unsigned",
    "signed",
    "long",
    "short",
    "char",
    "size_t",
    "ptrdiff_t",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
];
/// Declaration specifiers that do not change what kind of value a name holds.
const SPECIFIERS: &[&str] = &[
    "static",
    "const",
    "constexpr",
    "inline",
    "extern",
    "volatile",
    "register",
    "thread_local",
    "__host__",
    "__device__",
    "__constant__",
    "__shared__",
    "__managed__",
];
/// Punctuators, longest first so that `<<<` is never read as `<<` then `<`.
const PUNCTS: &[&str] = &[
    "<<<", ">>>", "<<=", ">>=", "::", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "->", "++", "--", "{", "}", "[", "]", "(", ")", "<", ">",
    ";", ",", ".", "=", "+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "?", ":", "#",
];
/// Binary operators of integer constant expressions and their C precedence.
const BINARY_OPS: &[(&str, u8)] = &[
    ("|", 1),
    ("^", 2),
    ("&", 3),
    ("<<", 4),
    (">>", 4),
    ("+", 5),
    ("-", 5),
    ("*", 6),
    ("/", 6),
    ("%", 6),
];
/// Operators that change a variable in place.
const UPDATES: &[&str] = &[
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--",
];

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Num(String),
    Punct(&'static str),
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    tok: Tok,
    line: u32,
}

impl Token {
    fn is(&self, punct: &str) -> bool {
        matches!(self.tok, Tok::Punct(p) if p == punct)
    }

    fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(name) => Some(name),
            _ => None,
        }
    }

    fn punct(&self) -> &'static str {
        match self.tok {
            Tok::Punct(p) => p,
            _ => "",
        }
    }
}

fn token_is(tokens: &[Token], i: usize, punct: &str) -> bool {
    tokens.get(i).is_some_and(|t| t.is(punct))
}

/// What a name is bound to from one point of the text on.
#[derive(Clone, Debug)]
enum Value {
    /// An object-like `#define`: its names mean what they mean where it is used.
    Macro(Vec<Token>),
    /// A constant's initializer (scalar or `dim3`), whose names mean what they
    /// meant where it was declared.
    Expr(Vec<Token>),
    /// `dim3 name(a, b, c)` or `dim3 name{a, b}`: the tokens between the brackets.
    Dim3(Vec<Token>),
    /// Not a compile-time constant (a parameter, a plain variable, a function-like
    /// macro, an `#undef`); it hides earlier bindings of the name.
    Opaque,
}

#[derive(Clone, Debug)]
struct Binding {
    /// Index of the first token that sees this binding.
    from: usize,
    value: Value,
}

/// Every binding of every name in a source, each name's in text order.
#[derive(Debug, Default)]
struct Symbols {
    by_name: HashMap<String, Vec<Binding>>,
}

impl Symbols {
    fn bind(&mut self, name: &str, binding: Binding) {
        self.by_name
            .entry(name.to_string())
            .or_default()
            .push(binding);
    }

    /// `#define`s and declarations are collected in separate passes, so each
    /// name's bindings are put back in text order before lookups.
    fn sort(&mut self) {
        for bindings in self.by_name.values_mut() {
            bindings.sort_by_key(|b| b.from);
        }
    }

    /// The nearest binding of `name` before token `at`: the approximation of
    /// C++ scoping described in the module doc.
    fn lookup(&self, name: &str, at: usize) -> Option<&Binding> {
        let all = self.by_name.get(name)?;
        let visible = all.partition_point(|b| b.from <= at);
        all.get(visible.checked_sub(1)?)
    }
}

/// Finds every kernel launch in a CUDA source text, in text order, with its
/// grid and block shapes where they are compile-time constants.
pub fn find_launches(source: &str) -> Vec<Launch> {
    let text = blank_comments_and_literals(source);
    let mut symbols = Symbols::default();
    let tokens = lex(&text, &mut symbols);
    collect_bindings(&tokens, &mut symbols);
    symbols.sort();
    (0..tokens.len())
        .filter_map(|i| launch_at(&tokens, i, &symbols))
        .collect()
}

// ---- Blanking comments and literals ----

/// The source with every comment and string or character literal replaced by
/// spaces (newlines kept, so lines still count) and C++14 digit separators
/// (`1'024`) removed, so that a `<<<` in a string or a commented-out launch is
/// never seen.
fn blank_comments_and_literals(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        i = match (chars[i], chars.get(i + 1)) {
            ('/', Some('/')) => blank_line_comment(&chars, i, &mut out),
            ('/', Some('*')) => blank_block_comment(&chars, i, &mut out),
            ('"', _) if is_raw_string_prefix(&chars, i) => blank_raw_string(&chars, i, &mut out),
            ('\'', _) if is_digit_separator(&chars, i) => i + 1,
            ('"' | '\'', _) => blank_quoted(&chars, i, &mut out),
            (c, _) => {
                out.push(c);
                i + 1
            }
        };
    }
    out
}

fn blank(c: char, out: &mut String) {
    out.push(if c == '\n' { '\n' } else { ' ' });
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Returns the index of the newline that ends the comment; a backslash before
/// it splices the next line into the comment (translation phase 2).
fn blank_line_comment(chars: &[char], i: usize, out: &mut String) -> usize {
    let mut j = i;
    while j < chars.len() && !(chars[j] == '\n' && chars[j - 1] != '\\') {
        blank(chars[j], out);
        j += 1;
    }
    j
}

fn blank_block_comment(chars: &[char], i: usize, out: &mut String) -> usize {
    let end = (i + 2..chars.len().saturating_sub(1))
        .find(|&j| chars[j] == '*' && chars[j + 1] == '/')
        .map_or(chars.len(), |j| j + 2);
    chars[i..end].iter().for_each(|&c| blank(c, out));
    end
}

/// A string or character literal; an unterminated one ends with its line.
fn blank_quoted(chars: &[char], i: usize, out: &mut String) -> usize {
    let quote = chars[i];
    blank(quote, out);
    let mut j = i + 1;
    while let Some(&c) = chars.get(j) {
        if c == '\n' {
            return j;
        }
        blank(c, out);
        j += 1;
        if c == quote {
            return j;
        }
        if let (true, Some(&escaped)) = (c == '\\', chars.get(j)) {
            blank(escaped, out);
            j += 1;
        }
    }
    j
}

/// The word ending just before `i`, at most `limit` characters back.
fn word_before(chars: &[char], i: usize, limit: usize, part: impl Fn(char) -> bool) -> &[char] {
    let floor = i.saturating_sub(limit);
    let mut start = i;
    while start > floor && part(chars[start - 1]) {
        start -= 1;
    }
    &chars[start..i]
}

fn is_raw_string_prefix(chars: &[char], i: usize) -> bool {
    let word: String = word_before(chars, i, 4, is_word).iter().collect();
    matches!(word.as_str(), "R" | "u8R" | "uR" | "UR" | "LR")
}

/// `'` inside a number (`1'000'000`), as opposed to the start of `'a'` or `u8'a'`.
fn is_digit_separator(chars: &[char], i: usize) -> bool {
    let word = word_before(chars, i, 64, |c| is_word(c) || c == '\'' || c == '.');
    word.first().is_some_and(char::is_ascii_digit)
        && chars.get(i + 1).is_some_and(char::is_ascii_alphanumeric)
}

/// `R"delim( ... )delim"`: may span lines and hold unescaped quotes.
fn blank_raw_string(chars: &[char], i: usize, out: &mut String) -> usize {
    let delim_len = chars[i + 1..].iter().take(17).position(|&c| c == '(');
    let Some(delim_len) = delim_len else {
        return blank_quoted(chars, i, out);
    };
    let delim = &chars[i + 1..i + 1 + delim_len];
    if delim
        .iter()
        .any(|&c| c.is_whitespace() || matches!(c, '\\' | ')' | '"'))
    {
        return blank_quoted(chars, i, out);
    }
    let mut terminator = vec![')'];
    terminator.extend_from_slice(delim);
    terminator.push('"');
    let body = i + 2 + delim_len;
    let end = chars[body..]
        .windows(terminator.len())
        .position(|w| w == terminator.as_slice())
        .map_or(chars.len(), |p| body + p + terminator.len());
    chars[i..end].iter().for_each(|&c| blank(c, out));
    end
}

// ---- Tokens and preprocessor lines ----

/// Cuts the blanked text into tokens, line by line (no token spans lines once
/// comments and literals are gone). Directive lines make no tokens: `#define`
/// and `#undef` bind names in `symbols`, and `#if 0` regions are skipped.
fn lex(text: &str, symbols: &mut Symbols) -> Vec<Token> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut tokens = Vec::new();
    // Nesting depth inside an `#if 0` region, `None` outside one.
    let mut dead: Option<u32> = None;
    let mut n = 0;
    while n < lines.len() {
        let line = u32::try_from(n + 1).unwrap_or(u32::MAX);
        if let Some(first) = lines[n].trim_start().strip_prefix('#') {
            let mut directive = first.to_string();
            while directive.trim_end().ends_with('\\') && n + 1 < lines.len() {
                directive.truncate(directive.trim_end().len() - 1);
                n += 1;
                directive.push(' ');
                directive.push_str(lines[n]);
            }
            dead = apply_directive(&directive, dead, tokens.len(), symbols);
        } else if dead.is_none() {
            lex_line(lines[n], line, &mut tokens);
        }
        n += 1;
    }
    tokens
}

fn lex_line(text: &str, line: u32, out: &mut Vec<Token>) {
    let bytes = text.as_bytes();
    let word_end = |from: usize, dot: bool| {
        from + bytes[from..]
            .iter()
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || (dot && b == b'.'))
            .count()
    };
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let next_is_digit = bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
        let (tok, end) = if b.is_ascii_alphabetic() || b == b'_' {
            let end = word_end(i, false);
            (Tok::Ident(text[i..end].to_string()), end)
        } else if b.is_ascii_digit() || (b == b'.' && next_is_digit) {
            let end = word_end(i, true);
            (Tok::Num(text[i..end].to_string()), end)
        } else if let Some(p) = PUNCTS.iter().find(|p| bytes[i..].starts_with(p.as_bytes())) {
            (Tok::Punct(p), i + p.len())
        } else {
            // Anything else (`@`, `$`, a stray backslash, non-ASCII) plays no part
            // in a launch configuration.
            i += 1;
            continue;
        };
        out.push(Token { tok, line });
        i = end;
    }
}

/// Applies one directive (the text after `#`) seen before token `from`, and
/// returns the new `#if 0` nesting depth.
fn apply_directive(
    text: &str,
    dead: Option<u32>,
    from: usize,
    symbols: &mut Symbols,
) -> Option<u32> {
    let mut words = Vec::new();
    lex_line(text, 0, &mut words);
    let keyword = words.first().and_then(Token::ident).unwrap_or("");
    let is_zero = |t: &Token| matches!(&t.tok, Tok::Num(n) if n == "0");
    match (dead, keyword) {
        (Some(depth), "if" | "ifdef" | "ifndef") => Some(depth.saturating_add(1)),
        (Some(0), "else" | "elif" | "endif") => None,
        (Some(depth), "endif") => Some(depth.saturating_sub(1)),
        (Some(depth), _) => Some(depth),
        (None, "if") if words.len() == 2 && is_zero(&words[1]) => Some(0),
        (None, "define") => {
            define(text, from, symbols);
            None
        }
        (None, "undef") => {
            if let Some(name) = words.get(1).and_then(Token::ident) {
                let value = Value::Opaque;
                symbols.bind(name, Binding { from, value });
            }
            None
        }
        (None, _) => None,
    }
}

fn define(text: &str, from: usize, symbols: &mut Symbols) {
    let Some(rest) = text.trim_start().strip_prefix("define") else {
        return;
    };
    let rest = rest.trim_start();
    let name_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    let (name, body) = rest.split_at(name_len);
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return;
    }
    // `#define NAME(args)` (no space before the parenthesis) is function-like;
    // its uses are calls, which are not evaluated.
    let value = if body.starts_with('(') {
        Value::Opaque
    } else {
        let mut tokens = Vec::new();
        lex_line(body, 0, &mut tokens);
        Value::Macro(tokens)
    };
    symbols.bind(name, Binding { from, value });
}

// ---- Declarations, enums and assignments ----

fn collect_bindings(tokens: &[Token], symbols: &mut Symbols) {
    let mut i = 0;
    while i < tokens.len() {
        let next = scan_enum(tokens, i, symbols)
            .or_else(|| scan_declaration(tokens, i, symbols))
            .or_else(|| scan_assignment(tokens, i, symbols));
        i = next.map_or(i + 1, |n| n.max(i + 1));
    }
}

/// The index of the bracket closing the one at `open`, counting all of `( [ {`.
fn matching_close(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open).take(MAX_SPAN) {
        match t.punct() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where an initializer or enumerator value starting at `start` ends: at a `,`
/// or `;` outside brackets, or at an unbalanced closing bracket.
fn expression_end(tokens: &[Token], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(start).take(MAX_SPAN) {
        match t.punct() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" if depth == 0 => return Some(k),
            ")" | "]" | "}" => depth -= 1,
            "," | ";" if depth == 0 => return Some(k),
            _ => {}
        }
    }
    (tokens.len().saturating_sub(start) <= MAX_SPAN).then_some(tokens.len())
}

/// `enum [class] [Name] [: type] { A = 1, B, C = B * 2 }`; an enumerator
/// without a value is one more than the previous one, the first is 0.
fn scan_enum(tokens: &[Token], i: usize, symbols: &mut Symbols) -> Option<usize> {
    if tokens[i].ident() != Some("enum") {
        return None;
    }
    let open =
        (i + 1..tokens.len().min(i + 32)).find(|&k| tokens[k].is("{") || tokens[k].is(";"))?;
    if tokens[open].is(";") {
        return Some(open + 1);
    }
    let mut j = open + 1;
    let mut previous: Option<&str> = None;
    while let Some(name) = tokens.get(j).and_then(Token::ident) {
        let (value, next) = if token_is(tokens, j + 1, "=") {
            let end = expression_end(tokens, j + 2)?;
            (tokens[j + 2..end].to_vec(), end)
        } else {
            let synthetic = |tok| Token { tok, line: 0 };
            let value = match previous {
                None => vec![synthetic(Tok::Num("0".into()))],
                Some(p) => vec![
                    synthetic(Tok::Ident(p.to_string())),
                    synthetic(Tok::Punct("+")),
                    synthetic(Tok::Num("1".into())),
                ],
            };
            (value, j + 1)
        };
        symbols.bind(
            name,
            Binding {
                from: j + 1,
                value: Value::Expr(value),
            },
        );
        previous = Some(name);
        j = if token_is(tokens, next, ",") {
            next + 1
        } else {
            next
        };
    }
    Some(j)
}

/// What the specifiers and type of a declaration say about its names.
#[derive(Default)]
struct DeclSpec {
    constant: bool,
    integer: bool,
    dim3: bool,
    auto: bool,
}

/// Reads the specifiers and type of a declaration starting at `i`; returns them
/// and the index of the first declarator.
fn decl_spec(tokens: &[Token], i: usize) -> Option<(DeclSpec, usize)> {
    let mut spec = DeclSpec::default();
    let mut j = i;
    while let Some(word) = tokens.get(j).and_then(Token::ident) {
        match word {
            "const" | "constexpr" => spec.constant = true,
            "dim3" => spec.dim3 = true,
            "auto" => spec.auto = true,
            "std" if token_is(tokens, j + 1, "::") => j += 1,
            w if INTEGER_TYPES.contains(&w) => spec.integer = true,
            w if SPECIFIERS.contains(&w) => {}
            _ => break,
        }
        j += 1;
    }
    (spec.integer || spec.dim3 || spec.auto).then_some((spec, j))
}

enum Init {
    Absent,
    /// `name(...)` or `name{...}`: the tokens inside.
    List(Vec<Token>),
    /// `name = ...`: the right-hand side.
    Assign(Vec<Token>),
}

/// The initializer of the declarator whose name is just before `k`, and the
/// index after it.
fn initializer(tokens: &[Token], k: usize) -> (Init, usize) {
    let Some(t) = tokens.get(k) else {
        return (Init::Absent, k);
    };
    if t.is("(") || t.is("{") {
        if let Some(close) = matching_close(tokens, k) {
            return (Init::List(tokens[k + 1..close].to_vec()), close + 1);
        }
    } else if t.is("=") {
        if let Some(end) = expression_end(tokens, k + 1) {
            return (Init::Assign(tokens[k + 1..end].to_vec()), end);
        }
    }
    (Init::Absent, k)
}

fn starts_shape_constructor(expr: &[Token]) -> bool {
    expr.first()
        .is_some_and(|t| t.ident() == Some("dim3") || t.is("{"))
}

fn declared_value(spec: &DeclSpec, init: Init) -> Value {
    match init {
        Init::List(inner) if spec.dim3 => Value::Dim3(inner),
        Init::List(inner) if spec.constant => Value::Expr(inner),
        // A `dim3` is taken at its declared value even when not `const`: it is
        // rarely changed, and a change to it is seen by `scan_assignment`.
        Init::Assign(rhs)
            if spec.dim3 || spec.constant || (spec.auto && starts_shape_constructor(&rhs)) =>
        {
            Value::Expr(rhs)
        }
        _ => Value::Opaque,
    }
}

/// `const int A = 1, B = A * 2;`, `dim3 block(16, 16);`, `int n` (a parameter,
/// bound as opaque so that it hides a constant of the same name). Returns the
/// index after the last declarator's name, so that a function's parameters or
/// an initializer are scanned in turn.
fn scan_declaration(tokens: &[Token], i: usize, symbols: &mut Symbols) -> Option<usize> {
    let (spec, first) = decl_spec(tokens, i)?;
    tokens.get(first)?.ident()?;
    let mut j = first;
    loop {
        let name = tokens[j].ident().unwrap_or_default();
        let (init, next) = initializer(tokens, j + 1);
        let value = declared_value(&spec, init);
        symbols.bind(name, Binding { from: j + 1, value });
        // `int a, b` continues the declaration; `int a, int b` (parameters) does not.
        let another = token_is(tokens, next, ",")
            && tokens.get(next + 1).and_then(Token::ident).is_some()
            && decl_spec(tokens, next + 1).is_none();
        if !another {
            return Some(j + 1);
        }
        j = next + 1;
    }
}

/// `block = dim3(32, 8);` rebinds a shape; any other assignment or update of a
/// name (`n = ...`, `n += ...`, `block.x = n`) makes it opaque from there on.
fn scan_assignment(tokens: &[Token], i: usize, symbols: &mut Symbols) -> Option<usize> {
    let name = tokens[i].ident()?;
    let after = |k: usize| tokens.get(i + k);
    let is_update = |t: &Token| UPDATES.contains(&t.punct());
    let field = after(2)
        .and_then(Token::ident)
        .is_some_and(|f| matches!(f, "x" | "y" | "z"));
    let value = if after(1)?.is("=") {
        let end = expression_end(tokens, i + 2)?;
        let rhs = &tokens[i + 2..end];
        if starts_shape_constructor(rhs) {
            Value::Expr(rhs.to_vec())
        } else {
            Value::Opaque
        }
    } else if is_update(after(1)?)
        || (after(1)?.is(".") && field && after(3).is_some_and(|t| t.is("=") || is_update(t)))
    {
        Value::Opaque
    } else {
        return None;
    };
    symbols.bind(name, Binding { from: i + 1, value });
    Some(i + 1)
}

// ---- Launch sites ----

/// A launch's kernel and its unevaluated grid and block arguments.
struct Site<'t> {
    kernel: String,
    line: u32,
    grid: &'t [Token],
    block: &'t [Token],
}

fn launch_at(tokens: &[Token], i: usize, symbols: &Symbols) -> Option<Launch> {
    let site = if tokens[i].is("<<<") {
        chevron_site(tokens, i)?
    } else {
        call_site(tokens, i)?
    };
    let scope = Scope {
        symbols,
        at: i,
        depth: 0,
    };
    Some(Launch {
        kernel: site.kernel,
        grid: scope.shape(site.grid).and_then(valid_grid),
        block: scope.shape(site.block).and_then(valid_block),
        line: site.line,
    })
}

pub(crate) fn valid_block(s: Shape) -> Option<Shape> {
    let threads = s.count()?;
    (s.x > 0 && s.y > 0 && s.z > 0 && s.z <= MAX_BLOCK_Z && threads <= MAX_THREADS_PER_BLOCK)
        .then_some(s)
}

pub(crate) fn valid_grid(s: Shape) -> Option<Shape> {
    let positive = s.x > 0 && s.y > 0 && s.z > 0;
    (positive && s.x <= MAX_GRID_X && s.y <= MAX_GRID_YZ && s.z <= MAX_GRID_YZ).then_some(s)
}

/// `kernel<<<grid, block[, shmem[, stream]]>>>`, `ns::k<T, 4><<<...>>>`.
fn chevron_site(tokens: &[Token], chevron: usize) -> Option<Site<'_>> {
    let name = kernel_before(tokens, chevron)?;
    let close = find_close(tokens, chevron + 1, ">>>")?;
    let args = split_commas(&tokens[chevron + 1..close], false);
    let [grid, block, ..] = args.as_slice() else {
        return None;
    };
    Some(Site {
        kernel: tokens[name].ident()?.to_string(),
        line: tokens[name].line,
        grid,
        block,
    })
}

/// `cudaLaunchKernel((void*)k, grid, block, args, shmem, stream)`.
fn call_site(tokens: &[Token], i: usize) -> Option<Site<'_>> {
    let call = tokens[i].ident()?;
    if !LAUNCH_CALLS.contains(&call) {
        return None;
    }
    // The C++ overload is a template: `cudaLaunchKernel<T>(...)`.
    let open = if token_is(tokens, i + 1, "<") {
        skip_angles(tokens, i + 1)?
    } else {
        i + 1
    };
    if !token_is(tokens, open, "(") {
        return None;
    }
    let close = find_close(tokens, open + 1, ")")?;
    let args = split_commas(&tokens[open + 1..close], true);
    let [func, grid, block, ..] = args.as_slice() else {
        return None;
    };
    Some(Site {
        kernel: kernel_of_pointer(func)?,
        line: tokens[i].line,
        grid,
        block,
    })
}

fn angle_closes(t: &Token) -> usize {
    match t.punct() {
        ">" => 1,
        ">>" => 2,
        ">>>" => 3,
        _ => 0,
    }
}

fn angle_opens(t: &Token) -> usize {
    match t.punct() {
        "<" => 1,
        "<<" => 2,
        _ => 0,
    }
}

/// The index of the kernel's name before a `<<<`, stepping back over template
/// arguments (`k<float, (N >> 1)>`).
fn kernel_before(tokens: &[Token], chevron: usize) -> Option<usize> {
    let mut j = chevron.checked_sub(1)?;
    if angle_closes(&tokens[j]) > 0 {
        let stop = j.saturating_sub(MAX_SPAN);
        let (mut angles, mut parens) = (0usize, 0usize);
        loop {
            let t = &tokens[j];
            match t.punct() {
                ")" | "]" => parens += 1,
                "(" | "[" => parens = parens.checked_sub(1)?,
                ";" | "{" | "}" => return None,
                _ if parens == 0 => {
                    angles += angle_closes(t);
                    if angle_opens(t) > 0 {
                        angles = angles.checked_sub(angle_opens(t))?;
                        if angles == 0 {
                            break;
                        }
                    }
                }
                _ => {}
            }
            if j <= stop {
                return None;
            }
            j -= 1;
        }
        j = j.checked_sub(1)?;
    }
    tokens[j].ident().map(|_| j)
}

/// The index after the `>` that closes the `<` at `open`.
fn skip_angles(tokens: &[Token], open: usize) -> Option<usize> {
    let (mut angles, mut parens) = (0usize, 0usize);
    for (k, t) in tokens.iter().enumerate().skip(open).take(MAX_SPAN) {
        match t.punct() {
            "(" | "[" => parens += 1,
            ")" | "]" => parens = parens.checked_sub(1)?,
            ";" | "{" | "}" => return None,
            _ if parens == 0 => {
                angles += angle_opens(t);
                if angle_closes(t) > 0 {
                    angles = angles.saturating_sub(angle_closes(t));
                    if angles == 0 {
                        return Some(k + 1);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The index of the first `close` token from `start` that sits outside brackets.
fn find_close(tokens: &[Token], start: usize, close: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(start).take(MAX_SPAN) {
        if depth == 0 && t.is(close) {
            return Some(k);
        }
        match t.punct() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.checked_sub(1)?,
            // No launch configuration holds a statement or another launch.
            ";" | "<<<" => return None,
            _ => {}
        }
    }
    None
}

/// Splits at commas outside brackets; with `angles`, also outside template
/// arguments (`<` right after a name), as in `(void*)k<float, 4>`.
fn split_commas(tokens: &[Token], angles: bool) -> Vec<&[Token]> {
    if tokens.is_empty() {
        return Vec::new();
    }
    let (mut parts, mut start) = (Vec::new(), 0);
    let (mut depth, mut angle) = (0usize, 0usize);
    for (k, t) in tokens.iter().enumerate() {
        let after_name = k > 0 && tokens[k - 1].ident().is_some();
        match t.punct() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            "<" if angles && after_name => angle += 1,
            ">" | ">>" if angle > 0 => angle = angle.saturating_sub(angle_closes(t)),
            "," if depth == 0 && angle == 0 => {
                parts.push(&tokens[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    parts
}

/// The kernel named by `cudaLaunchKernel`'s first argument: `k`, `&k`,
/// `(void*)k`, `(const void *)&ns::k<float>`, `reinterpret_cast<const void*>(k)`.
fn kernel_of_pointer(mut arg: &[Token]) -> Option<String> {
    loop {
        let first = arg.first()?;
        if first.is("&") {
            arg = &arg[1..];
        } else if first.is("(") {
            let close = matching_close(arg, 0)?;
            let inner = &arg[1..close];
            if close + 1 == arg.len() {
                arg = inner;
            } else if is_pointer_type(inner) {
                arg = &arg[close + 1..];
            } else {
                return None;
            }
        } else if matches!(
            first.ident(),
            Some("reinterpret_cast" | "static_cast" | "const_cast")
        ) {
            let open = skip_angles(arg, 1)?;
            let close = matching_close(arg, open)?;
            arg = arg.get(open + 1..close)?;
        } else {
            break;
        }
    }
    // What is left must be a qualified name, `ns::k<float>`: names and `::`
    // alternate, so that a declaration's `const void *func` is no launch.
    let mut name = None;
    let mut after_name = false;
    let mut k = 0;
    while let Some(t) = arg.get(k) {
        match t.ident() {
            Some("template") => {}
            Some(_) if after_name => return None,
            Some(ident) => {
                name = Some(ident);
                after_name = true;
            }
            None if t.is("::") => after_name = false,
            None if t.is("<") => {
                k = skip_angles(arg, k)?;
                continue;
            }
            None => return None,
        }
        k += 1;
    }
    name.map(str::to_string)
}

/// `void*`, `const void *`: the type of a C-style cast to a function pointer.
fn is_pointer_type(tokens: &[Token]) -> bool {
    tokens.iter().any(|t| t.is("*"))
        && tokens
            .iter()
            .all(|t| t.is("*") || matches!(t.ident(), Some("void" | "const" | "volatile")))
}

/// The last name of a plain, possibly qualified, name: `ns::Cfg::kBlock` is
/// `kBlock`; `None` for anything else.
fn lone_name(expr: &[Token]) -> Option<&str> {
    let mut last = None;
    let mut expect_name = true;
    for t in expr {
        match (expect_name, t.ident()) {
            (true, Some(name)) => last = Some(name),
            (false, None) if t.is("::") => {}
            (true, None) if t.is("::") && last.is_none() => continue,
            _ => return None,
        }
        expect_name = !expect_name;
    }
    last.filter(|_| !expect_name)
}

// ---- Evaluation ----

/// Where in the text names are being resolved, and how many names deep.
#[derive(Clone, Copy)]
struct Scope<'s> {
    symbols: &'s Symbols,
    at: usize,
    depth: u32,
}

impl<'s> Scope<'s> {
    /// The value `name` is bound to here, and the scope its definition is read in.
    fn resolve(self, name: &str) -> Option<(&'s Value, Scope<'s>)> {
        if self.depth >= MAX_NAME_DEPTH {
            return None;
        }
        let binding = self.symbols.lookup(name, self.at)?;
        let at = match binding.value {
            Value::Macro(_) => self.at,
            _ => binding.from,
        };
        Some((
            &binding.value,
            Scope {
                at,
                depth: self.depth + 1,
                ..self
            },
        ))
    }

    /// A launch argument as a shape: `dim3(16, 16)`, `{16, 16}`, a `dim3`
    /// variable, or an integer expression (a shape of x only).
    fn shape(self, mut expr: &[Token]) -> Option<Shape> {
        // `((block))`: unwrapped in a loop, with the same cap as expressions,
        // rather than by recursion.
        for _ in 0..=MAX_NESTING {
            match enclosed(expr, "(") {
                Some(inner) => expr = inner,
                None => break,
            }
        }
        if enclosed(expr, "(").is_some() {
            return None;
        }
        if let Some(inner) = enclosed(expr, "{") {
            return self.components(inner);
        }
        if expr.first().and_then(Token::ident) == Some("dim3") {
            let rest = &expr[1..];
            let inner = enclosed(rest, "(").or_else(|| enclosed(rest, "{"))?;
            return self.components(inner);
        }
        if let Some(name) = lone_name(expr) {
            let (value, inner) = self.resolve(name)?;
            return match value {
                Value::Macro(tokens) | Value::Expr(tokens) => inner.shape(tokens),
                Value::Dim3(tokens) => inner.components(tokens),
                Value::Opaque => None,
            };
        }
        Some(Shape {
            x: self.dimension(expr)?,
            y: 1,
            z: 1,
        })
    }

    /// `dim3`'s constructor arguments: missing ones are 1.
    fn components(self, inner: &[Token]) -> Option<Shape> {
        let parts = split_commas(inner, false);
        let dim = |part: Option<&&[Token]>| part.map_or(Some(1), |p| self.dimension(p));
        match parts.as_slice() {
            [] => Some(Shape { x: 1, y: 1, z: 1 }),
            // `dim3(n)`, or a copy `dim3(other)`.
            [one] => self.shape(one),
            [x, rest @ ..] if rest.len() <= 2 => Some(Shape {
                x: self.dimension(x)?,
                y: dim(rest.first())?,
                z: dim(rest.get(1))?,
            }),
            _ => None,
        }
    }

    fn dimension(self, expr: &[Token]) -> Option<u32> {
        u32::try_from(self.scalar(expr)?).ok()
    }

    fn scalar(self, expr: &[Token]) -> Option<i64> {
        let mut parser = ConstExpr {
            tokens: expr,
            pos: 0,
            scope: self,
            nesting: 0,
        };
        let value = parser.binary(0)?;
        (parser.pos == expr.len()).then_some(value)
    }
}

/// The tokens inside `expr` when it is one bracketed group opened by `open`.
fn enclosed<'t>(expr: &'t [Token], open: &str) -> Option<&'t [Token]> {
    if !expr.first()?.is(open) {
        return None;
    }
    let close = matching_close(expr, 0)?;
    (close + 1 == expr.len()).then(|| &expr[1..close])
}

/// An integer constant expression, by recursive descent with checked
/// arithmetic: overflow or division by zero makes the value unknown, not wrong.
/// Values are signed 64-bit; C++'s unsigned wraparound is not modelled, so
/// `0u - 1` is unknown rather than 4294967295.
struct ConstExpr<'t, 's> {
    tokens: &'t [Token],
    pos: usize,
    scope: Scope<'s>,
    nesting: u32,
}

impl ConstExpr<'_, '_> {
    fn peek_is(&self, punct: &str) -> bool {
        token_is(self.tokens, self.pos, punct)
    }

    fn expect(&mut self, punct: &str) -> Option<()> {
        self.peek_is(punct).then(|| self.pos += 1)
    }

    /// Precedence climbing over [`BINARY_OPS`], all left-associative.
    fn binary(&mut self, min_precedence: u8) -> Option<i64> {
        let mut lhs = self.unary()?;
        loop {
            let op = self.tokens.get(self.pos).map_or("", Token::punct);
            let Some(&(op, precedence)) = BINARY_OPS.iter().find(|(o, _)| *o == op) else {
                return Some(lhs);
            };
            if precedence < min_precedence {
                return Some(lhs);
            }
            self.pos += 1;
            let rhs = self.binary(precedence + 1)?;
            lhs = apply(op, lhs, rhs)?;
        }
    }

    fn unary(&mut self) -> Option<i64> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return None;
        }
        let value = if self.expect("-").is_some() {
            self.unary()?.checked_neg()
        } else if self.expect("+").is_some() {
            self.unary()
        } else {
            self.primary()
        };
        self.nesting -= 1;
        value
    }

    fn primary(&mut self) -> Option<i64> {
        let token = self.tokens.get(self.pos)?;
        self.pos += 1;
        match &token.tok {
            Tok::Num(text) => integer_literal(text),
            Tok::Punct("(") => {
                if let Some(close) = self.cast_end() {
                    self.pos = close + 1;
                    return self.unary();
                }
                let value = self.binary(0)?;
                self.expect(")")?;
                Some(value)
            }
            Tok::Punct("::") => {
                let name = self.tokens.get(self.pos)?.ident()?;
                self.pos += 1;
                self.name(name)
            }
            Tok::Ident(cast)
                if matches!(cast.as_str(), "static_cast" | "reinterpret_cast")
                    && self.peek_is("<") =>
            {
                self.pos = skip_angles(self.tokens, self.pos)?;
                self.parenthesized()
            }
            Tok::Ident(name) => self.name(name),
            _ => None,
        }
    }

    fn parenthesized(&mut self) -> Option<i64> {
        self.expect("(")?;
        let value = self.binary(0)?;
        self.expect(")")?;
        Some(value)
    }

    /// With `pos` just after a `(`: the index of its `)` if it holds only an
    /// integer type, as in `(unsigned)N`. The cast is taken as the identity.
    fn cast_end(&self) -> Option<usize> {
        let mut k = self.pos;
        while let Some(t) = self.tokens.get(k) {
            match t.ident() {
                Some(w) if INTEGER_TYPES.contains(&w) || w == "const" || w == "std" => {}
                None if t.is("::") => {}
                None if t.is(")") && k > self.pos => return Some(k),
                _ => return None,
            }
            k += 1;
        }
        None
    }

    /// A name, possibly qualified (`Cfg::Small`), with `pos` after its first part.
    fn name(&mut self, first: &str) -> Option<i64> {
        let mut last = first;
        while self.expect("::").is_some() {
            last = self.tokens.get(self.pos)?.ident()?;
            self.pos += 1;
        }
        if INTEGER_TYPES.contains(&last) {
            // A functional cast, `unsigned(N)`.
            return self.parenthesized();
        }
        if self.peek_is("(") || self.peek_is("<") {
            // A call or a template: not evaluated (see the module doc).
            return None;
        }
        let (value, inner) = self.scope.resolve(last)?;
        match value {
            Value::Macro(tokens) | Value::Expr(tokens) => inner.scalar(tokens),
            Value::Dim3(_) | Value::Opaque => None,
        }
    }
}

fn apply(op: &str, a: i64, b: i64) -> Option<i64> {
    match op {
        "+" => a.checked_add(b),
        "-" => a.checked_sub(b),
        "*" => a.checked_mul(b),
        "/" => a.checked_div(b),
        "%" => a.checked_rem(b),
        // Multiplying by a power of two catches bits shifted out.
        "<<" => a.checked_mul(1i64 << u32::try_from(b).ok().filter(|s| *s < 63)?),
        ">>" => Some(a >> u32::try_from(b).ok().filter(|s| *s < 64)?),
        "&" => Some(a & b),
        "|" => Some(a | b),
        "^" => Some(a ^ b),
        _ => None,
    }
}

/// `256`, `256u`, `0x100`, `0b1`, `0400`, `64ull`; floating literals are not integers.
fn integer_literal(text: &str) -> Option<i64> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L', 'z', 'Z']);
    let (radix, body) = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        (16, hex)
    } else if let Some(bin) = digits
        .strip_prefix("0b")
        .or_else(|| digits.strip_prefix("0B"))
    {
        (2, bin)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    // `from_str_radix` accepts a leading sign, which is no part of a literal.
    if !body.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    i64::try_from(u64::from_str_radix(body, radix).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(x: u32, y: u32, z: u32) -> Option<Shape> {
        Some(Shape { x, y, z })
    }

    fn launch(kernel: &str, grid: Option<Shape>, block: Option<Shape>, line: u32) -> Launch {
        Launch {
            kernel: kernel.to_string(),
            grid,
            block,
            line,
        }
    }

    /// The (grid, block) of the only launch of `kernel`.
    fn shapes_of(source: &str, kernel: &str) -> (Option<Shape>, Option<Shape>) {
        let found: Vec<Launch> = find_launches(source)
            .into_iter()
            .filter(|l| l.kernel == kernel)
            .collect();
        assert_eq!(found.len(), 1, "launches of {kernel}: {found:?}");
        (found[0].grid, found[0].block)
    }

    #[test]
    fn matrix_multiply_16x16_block_with_runtime_grid() {
        let source = "#define BLOCK_SIZE 16

__global__ void matmul(const float *a, const float *b, float *c, int n, int m) {
    int row = blockIdx.y * BLOCK_SIZE + threadIdx.y;
}

void run(const float *a, const float *b, float *c, int n, int m) {
    dim3 block(BLOCK_SIZE, BLOCK_SIZE);
    dim3 grid((n + 15) / 16, (m + 15) / 16);
    matmul<<<grid, block>>>(a, b, c, n, m);
}
";
        assert_eq!(
            find_launches(source),
            vec![launch("matmul", None, shape(16, 16, 1), 10)]
        );
    }

    #[test]
    fn literal_grid_and_block() {
        let source =
            "void go(int n, float *x, float *y) {\n    saxpy<<<64, 256>>>(n, 2.0f, x, y);\n}\n";
        assert_eq!(
            find_launches(source),
            vec![launch("saxpy", shape(64, 1, 1), shape(256, 1, 1), 2)]
        );
    }

    #[test]
    fn const_int_block_and_runtime_block_count() {
        let source = "const int THREADS = 128;
void launch(float *d, int n) {
    int blocks = (n + THREADS - 1) / THREADS;
    scale<<<blocks, THREADS>>>(d, n);
}
";
        assert_eq!(
            find_launches(source),
            vec![launch("scale", None, shape(128, 1, 1), 4)]
        );
    }

    #[test]
    fn launches_in_comments_are_ignored() {
        let source = "// old: kernel<<<1, 32>>>(d);
/* kernel<<<2, 64>>>(d);
   still a comment */ kernel<<<4, 128>>>(d);
// a spliced comment \\
kernel<<<8, 8>>>(d);
";
        assert_eq!(
            find_launches(source),
            vec![launch("kernel", shape(4, 1, 1), shape(128, 1, 1), 3)]
        );
    }

    #[test]
    fn launches_in_strings_are_ignored() {
        let source = r#"printf("launching k<<<%d, %d>>>\n", blocks, threads);
puts("he said \"k<<<1, 1>>>\"");
const char *raw = R"x(k<<<9, 9>>>")x";
char open = '<';
k<<<2, 32>>>(p);
"#;
        assert_eq!(
            find_launches(source),
            vec![launch("k", shape(2, 1, 1), shape(32, 1, 1), 5)]
        );
    }

    #[test]
    fn cuda_launch_kernel_forms() {
        let source = "dim3 grid(8, 8);
dim3 block(16, 8, 2);
void *args[] = {&d, &n};
cudaLaunchKernel((void*)stencil, grid, block, args, 0, stream);
cudaLaunchKernel(reduce, dim3(64), dim3(256), args);
cudaLaunchKernel((const void *)&ns::scan<int, 4>, 32, 1024, args, 0, 0);
cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(sync), 4, 64, args);
extern cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args);
template <typename T> cudaError_t cudaLaunchKernel(T func, dim3 grid, dim3 block, void **args);
";
        assert_eq!(
            find_launches(source),
            vec![
                launch("stencil", shape(8, 8, 1), shape(16, 8, 2), 4),
                launch("reduce", shape(64, 1, 1), shape(256, 1, 1), 5),
                launch("scan", shape(32, 1, 1), shape(1024, 1, 1), 6),
                launch("sync", shape(4, 1, 1), shape(64, 1, 1), 7),
            ]
        );
    }

    #[test]
    fn same_kernel_twice_uses_the_nearest_declaration() {
        let source = "void small(float *d) {
    const int BS = 64;
    step<<<1, BS>>>(d);
}
void large(float *d) {
    const int BS = 512;
    step<<<8, BS>>>(d);
}
";
        assert_eq!(
            find_launches(source),
            vec![
                launch("step", shape(1, 1, 1), shape(64, 1, 1), 3),
                launch("step", shape(8, 1, 1), shape(512, 1, 1), 7),
            ]
        );
    }

    #[test]
    fn templated_qualified_four_argument_and_multi_line_launches() {
        let source = "namespace ns { template <typename T, int N> __global__ void tile(T *p); }
void go(float *p, cudaStream_t s) {
    ns::tile<float, 4><<<dim3(16, 16), dim3(8, 8), 1024, s>>>(p);
    transpose<<<
        dim3(32, 32),
        dim3(32, 8)
    >>>(p);
    shift<(4 >> 1)><<<1, 32>>>(p);
}
";
        assert_eq!(
            find_launches(source),
            vec![
                launch("tile", shape(16, 16, 1), shape(8, 8, 1), 3),
                launch("transpose", shape(32, 32, 1), shape(32, 8, 1), 4),
                launch("shift", shape(1, 1, 1), shape(32, 1, 1), 8),
            ]
        );
    }

    #[test]
    fn integer_constant_expressions() {
        let source = "#define TPB (1 << 8)
constexpr unsigned WARPS = 0x4;
static const int WARP = 32;
constexpr size_t TILE = 256u / 16;
enum { ROWS = 4, COLS, DEPTH = COLS * 2 };
enum class Cfg : int { Small = 64 };
void go(float *p) {
    a<<<TPB >> 1, TPB>>>(p);
    b<<<10 % 4, WARPS * WARP>>>(p);
    dim3 t = dim3(TILE, TILE);
    c<<<1, t>>>(p);
    dim3 u{ROWS, COLS, DEPTH};
    d<<<u, Cfg::Small>>>(p);
    e<<<(int)TILE, static_cast<unsigned>(TILE * 2)>>>(p);
    f<<<1'000, 0b10 | 1>>>(p);
    g<<<{4, 2}, -(-96)>>>(p);
}
";
        // 1 << 8 = 256, and 256 >> 1 = 128; 10 % 4 = 2 and 4 * 32 = 128;
        // 256 / 16 = 16; COLS = ROWS + 1 = 5 and DEPTH = 5 * 2 = 10.
        assert_eq!(shapes_of(source, "a"), (shape(128, 1, 1), shape(256, 1, 1)));
        assert_eq!(shapes_of(source, "b"), (shape(2, 1, 1), shape(128, 1, 1)));
        assert_eq!(shapes_of(source, "c"), (shape(1, 1, 1), shape(16, 16, 1)));
        assert_eq!(shapes_of(source, "d"), (shape(4, 5, 10), shape(64, 1, 1)));
        assert_eq!(shapes_of(source, "e"), (shape(16, 1, 1), shape(32, 1, 1)));
        assert_eq!(shapes_of(source, "f"), (shape(1000, 1, 1), shape(3, 1, 1)));
        assert_eq!(shapes_of(source, "g"), (shape(4, 2, 1), shape(96, 1, 1)));
    }

    #[test]
    fn dim3_declaration_forms_default_missing_components_to_one() {
        let source = "#define BLOCK dim3(8, 4)
const dim3 paren(32);
dim3 braces{8, 8};
dim3 assigned = dim3(2, 2, 2);
dim3 listed = {64, 2};
auto deduced = dim3(4, 4);
void go(float *p) {
    k1<<<paren, braces>>>(p);
    k2<<<assigned, listed>>>(p);
    k3<<<dim3(), deduced>>>(p);
    k4<<<BLOCK, BLOCK>>>(p);
}
";
        assert_eq!(shapes_of(source, "k1"), (shape(32, 1, 1), shape(8, 8, 1)));
        assert_eq!(shapes_of(source, "k2"), (shape(2, 2, 2), shape(64, 2, 1)));
        assert_eq!(shapes_of(source, "k3"), (shape(1, 1, 1), shape(4, 4, 1)));
        assert_eq!(shapes_of(source, "k4"), (shape(8, 4, 1), shape(8, 4, 1)));
    }

    #[test]
    fn shapes_cuda_cannot_launch_are_rejected() {
        let source = "void go(float *p) {
    a<<<0, 256>>>(p);
    b<<<1, 0>>>(p);
    c<<<1, 2048>>>(p);
    d<<<1, dim3(32, 32, 2)>>>(p);
    e<<<1, dim3(1, 1, 128)>>>(p);
    f<<<dim3(1, 70000), 32>>>(p);
    g<<<-4, dim3(32, 0)>>>(p);
}
";
        // 32 * 32 * 2 = 2048 threads; z = 128 is over the limit of 64.
        assert_eq!(shapes_of(source, "a"), (None, shape(256, 1, 1)));
        assert_eq!(shapes_of(source, "b"), (shape(1, 1, 1), None));
        assert_eq!(shapes_of(source, "c"), (shape(1, 1, 1), None));
        assert_eq!(shapes_of(source, "d"), (shape(1, 1, 1), None));
        assert_eq!(shapes_of(source, "e"), (shape(1, 1, 1), None));
        assert_eq!(shapes_of(source, "f"), (None, shape(32, 1, 1)));
        assert_eq!(shapes_of(source, "g"), (None, None));
    }

    #[test]
    fn runtime_values_are_unknown_not_guessed() {
        let source = "int threads_for(int n);
const int threads = 128;
#define ROUND_UP(a, b) (((a) + (b) - 1) / (b))
void go(float *p, int n, int threads) {
    k1<<<(n + 255) / 256, 256>>>(p);
    k2<<<1, threads_for(n)>>>(p);
    k3<<<1, sizeof(float) * 32>>>(p);
    k4<<<1, threads>>>(p);
    k5<<<ROUND_UP(n, 64), 64>>>(p);
    dim3 block(16, 16);
    block.x = n;
    k6<<<1, block>>>(p);
    dim3 again(8, 8);
    again = dim3(4, 4);
    k7<<<1, again>>>(p);
    unsigned plain = 64;
    k8<<<1, plain>>>(p);
}
";
        assert_eq!(shapes_of(source, "k1"), (None, shape(256, 1, 1)));
        assert_eq!(shapes_of(source, "k2"), (shape(1, 1, 1), None));
        assert_eq!(shapes_of(source, "k3"), (shape(1, 1, 1), None));
        // The parameter `threads` hides the global constant.
        assert_eq!(shapes_of(source, "k4"), (shape(1, 1, 1), None));
        assert_eq!(shapes_of(source, "k5"), (None, shape(64, 1, 1)));
        assert_eq!(shapes_of(source, "k6"), (shape(1, 1, 1), None));
        assert_eq!(shapes_of(source, "k7"), (shape(1, 1, 1), shape(4, 4, 1)));
        assert_eq!(shapes_of(source, "k8"), (shape(1, 1, 1), None));
    }

    #[test]
    fn preprocessor_if_0_undef_and_continued_define() {
        let source = "#define WIDE \\
    512
#if 0
dead<<<1, 1>>>(p);
#if 1
#endif
#else
live<<<1, WIDE>>>(p);
#endif
#undef WIDE
after<<<1, WIDE>>>(p);
";
        let found = find_launches(source);
        assert_eq!(
            found,
            vec![
                launch("live", shape(1, 1, 1), shape(512, 1, 1), 8),
                launch("after", shape(1, 1, 1), None, 11),
            ]
        );
    }

    #[test]
    fn integer_literals() {
        assert_eq!(integer_literal("256u"), Some(256));
        assert_eq!(integer_literal("0x100"), Some(256));
        assert_eq!(integer_literal("0400"), Some(256));
        assert_eq!(integer_literal("64ull"), Some(64));
        assert_eq!(integer_literal("0"), Some(0));
        assert_eq!(integer_literal("1.5f"), None);
        assert_eq!(integer_literal("0x"), None);
        assert_eq!(integer_literal("99999999999999999999999"), None);
    }

    #[test]
    fn malformed_or_hostile_input_never_panics() {
        let deep = |n: usize| format!("k<<<1, {}1{}>>>();", "(".repeat(n), ")".repeat(n));
        let inputs = [
            "k<<<",
            "k<<<1, 2",
            ">>>",
            "<<<1, 2>>>",
            "k<<<>>>",
            "k<<<1>>>",
            "k<<<1 << 70, 1 >> 99>>>()",
            "k<<<1/0, 1%0>>>()",
            "k<<<0x, 08>>>()",
            "#define A B\n#define B A\nk<<<A, B>>>();",
            "'",
            "\"",
            "/*",
            "R\"(",
            "R\"abc",
            "k<float<<<1,2>>>",
            "k<<<1,2>>>>>>",
            "enum {",
            "enum { A = ",
            "dim3 b(",
            "const int N = ",
            "cudaLaunchKernel(",
            "cudaLaunchKernel((void*), 1, 1)",
            "\u{feff}k<<<1,1>>>",
            "ü<<<1,1>>>",
            "#define",
            "#",
            "#if 0",
            "#endif\n#endif",
            "a.x = ",
            "int a, ",
            "::<<<1,1>>>",
            "k<<<(,), {,}>>>",
            "k<<<dim3(1,2,3,4), dim3(()>>>",
            "1'",
            "x = 1'2'3;",
        ];
        for input in inputs {
            let _ = find_launches(input);
        }
        let huge = find_launches("k<<<1, 99999999999999999999999>>>();");
        assert_eq!(huge, vec![launch("k", shape(1, 1, 1), None, 1)]);
        assert_eq!(shapes_of(&deep(200), "k"), (shape(1, 1, 1), shape(1, 1, 1)));
        assert_eq!(shapes_of(&deep(1000), "k"), (shape(1, 1, 1), None));
        assert_eq!(find_launches(&deep(100_000)), vec![]);
        let _ = find_launches(&"k<<<".repeat(20_000));
        let _ = find_launches(&format!("k<{}<<<1,1>>>", ">".repeat(20_000)));
    }
}
