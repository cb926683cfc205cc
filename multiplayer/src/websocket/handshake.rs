//! The opening handshake (RFC 6455 §4): the client's HTTP/1.1 upgrade request and the server's
//! `101 Switching Protocols` response, read from the start of each direction's byte stream.
//!
//! [`parse_request`] and [`parse_response`] return the head and its length (up to and including
//! the empty line, `\r\n\r\n`), `Ok(None)` while the head is incomplete, and an error for bytes
//! that cannot begin such a head (at once: a stream that does not start with `GET ` or
//! `HTTP/1.1 ` is rejected from its first bytes) or for a head without its end in
//! [`MAX_HEAD`] bytes. Nothing is allocated; headers are read from the input as they are asked
//! for. Call again with more bytes while the result is `Ok(None)`: each call scans the input
//! afresh, at most [`MAX_HEAD`] bytes of it. [`sniff`] tells whether a stream's first bytes look like a WebSocket handshake;
//! [`accept_key`] computes the `Sec-WebSocket-Accept` a key asks for.
//!
//! What is checked: the start line's form and version (HTTP/1.1), every header line's form, the
//! request's method (`GET`), its `Upgrade: websocket`, `Connection: Upgrade` and
//! `Sec-WebSocket-Key`; for a `101` response, `Upgrade`, `Connection` and `Sec-WebSocket-Accept`
//! (a response with another status is returned as is: the server refused the upgrade).
//! [`Response::accepts`] checks the accept key against a request's key. Header names are
//! compared ASCII case-insensitively; `Upgrade` and `Connection` are comma-separated token lists.

use alloc::string::String;

use super::error::{Error, ErrorKind, Result};

/// The longest head (start line and headers, with the final empty line) the parsers wait for:
/// 16 KiB. A Godot handshake is about 200 bytes.
pub const MAX_HEAD: usize = 16 * 1024;

/// The GUID RFC 6455 appends to the client's key before hashing it.
const GUID: &str = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/// The header lines of a head, read lazily from the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headers<'a> {
    /// The header lines, each ending with `\r\n` (checked when the head was parsed).
    text: &'a str,
}

impl<'a> Headers<'a> {
    /// Every header as `(name, value)`, in order, the value without surrounding spaces or tabs.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.text.split_terminator("\r\n").filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            Some((name, value.trim_matches([' ', '\t'])))
        })
    }

    /// The value of the first header named `name` (ASCII case-insensitive).
    pub fn get(&self, name: &str) -> Option<&'a str> {
        self.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }

    /// Whether any header named `name` lists `token` among its comma-separated values (ASCII
    /// case-insensitive), as `Connection: keep-alive, Upgrade` lists `upgrade`.
    pub fn has_token(&self, name: &str, token: &str) -> bool {
        self.iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .any(|(_, v)| {
                v.split(',')
                    .any(|t| t.trim_matches([' ', '\t']).eq_ignore_ascii_case(token))
            })
    }
}

/// A client's upgrade request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request<'a> {
    target: &'a str,
    headers: Headers<'a>,
    key: &'a str,
}

impl<'a> Request<'a> {
    /// The request target: the URL's path and query, `/` for `ws://host:port`.
    pub fn target(&self) -> &'a str {
        self.target
    }

    /// The headers.
    pub fn headers(&self) -> Headers<'a> {
        self.headers
    }

    /// `Sec-WebSocket-Key`: the client's nonce, base64.
    pub fn key(&self) -> &'a str {
        self.key
    }

    /// `Host`, if sent.
    pub fn host(&self) -> Option<&'a str> {
        self.headers.get("Host")
    }

    /// `Sec-WebSocket-Version` (13 for RFC 6455), if sent.
    pub fn version(&self) -> Option<&'a str> {
        self.headers.get("Sec-WebSocket-Version")
    }

    /// `Sec-WebSocket-Protocol`: the subprotocols the client offers, comma-separated, if any.
    pub fn protocols(&self) -> Option<&'a str> {
        self.headers.get("Sec-WebSocket-Protocol")
    }
}

/// A server's response to an upgrade request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response<'a> {
    status: u16,
    reason: &'a str,
    headers: Headers<'a>,
}

impl<'a> Response<'a> {
    /// The status code: 101 when the server accepted the upgrade.
    pub fn status(&self) -> u16 {
        self.status
    }

    /// The reason phrase (`Switching Protocols`).
    pub fn reason(&self) -> &'a str {
        self.reason
    }

    /// The headers.
    pub fn headers(&self) -> Headers<'a> {
        self.headers
    }

    /// Whether the server switched to WebSocket (status 101; the headers that go with it were
    /// checked when it was parsed).
    pub fn is_upgrade(&self) -> bool {
        self.status == 101
    }

    /// `Sec-WebSocket-Accept` (present in every `101` response parsed here).
    pub fn accept(&self) -> Option<&'a str> {
        self.headers.get("Sec-WebSocket-Accept")
    }

    /// `Sec-WebSocket-Protocol`: the subprotocol the server chose, if any.
    pub fn protocol(&self) -> Option<&'a str> {
        self.headers.get("Sec-WebSocket-Protocol")
    }

    /// Whether this is a `101` whose `Sec-WebSocket-Accept` answers `request`'s key.
    pub fn accepts(&self, request: &Request<'_>) -> bool {
        self.is_upgrade() && self.accept() == Some(accept_key(request.key).as_str())
    }
}

/// A parsed head: a request or a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Head<'a> {
    /// A client's upgrade request.
    Request(Request<'a>),
    /// A server's response.
    Response(Response<'a>),
}

/// What the first bytes of a stream are, for [`sniff`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sniff {
    /// A whole WebSocket upgrade request.
    Request,
    /// A whole `101` response with the WebSocket upgrade's headers.
    Response,
    /// The start of a request or response; more bytes will tell.
    NeedMore,
    /// Not a WebSocket handshake.
    No,
}

/// Reads the client's upgrade request from the start of `input`: the request and the length of
/// its head, `Ok(None)` if `input` holds only the start of one. See the [module docs](self).
///
/// ```
/// use gdvariant_multiplayer::websocket::handshake;
/// let bytes = b"GET / HTTP/1.1\r\nHost: 127.0.0.1:9080\r\nUpgrade: websocket\r\n\
///     Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
///     Sec-WebSocket-Version: 13\r\n\r\n\x82\x84";
/// let (req, len) = handshake::parse_request(bytes)?.unwrap();
/// assert_eq!((req.target(), req.host(), len), ("/", Some("127.0.0.1:9080"), bytes.len() - 2));
/// assert_eq!(handshake::accept_key(req.key()), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
/// assert_eq!(handshake::parse_request(&bytes[..40])?, None);
/// assert!(handshake::parse_request(b"POST / HTTP/1.1\r\n").is_err());
/// # Ok::<(), gdvariant_multiplayer::websocket::Error>(())
/// ```
pub fn parse_request(input: &[u8]) -> Result<Option<(Request<'_>, usize)>> {
    let Some((start, headers, len)) = split_head(input, b"GET ")? else {
        return Ok(None);
    };
    let bad = |at: usize| Error::new(ErrorKind::BadStartLine, at as u64);
    let rest = &start[4..];
    let (target, version) = rest.split_once(' ').ok_or(bad(0))?;
    if target.is_empty() || version != "HTTP/1.1" || !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad(0));
    }
    let at = start.len() as u64 + 2;
    let missing = |h| Error::new(ErrorKind::MissingHeader(h), at);
    if !headers.has_token("Upgrade", "websocket") {
        return Err(missing("Upgrade: websocket"));
    }
    if !headers.has_token("Connection", "upgrade") {
        return Err(missing("Connection: Upgrade"));
    }
    let key = headers
        .get("Sec-WebSocket-Key")
        .filter(|k| !k.is_empty())
        .ok_or(missing("Sec-WebSocket-Key"))?;
    Ok(Some((
        Request {
            target,
            headers,
            key,
        },
        len,
    )))
}

/// Reads the server's response from the start of `input`: the response and the length of its
/// head, `Ok(None)` if `input` holds only the start of one. A `101` must carry the upgrade's
/// headers; another status is returned as is. See the [module docs](self).
///
/// ```
/// use gdvariant_multiplayer::websocket::handshake;
/// let bytes = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
///     Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
/// let (resp, len) = handshake::parse_response(bytes)?.unwrap();
/// assert!(resp.is_upgrade() && len == bytes.len());
/// assert_eq!(resp.accept(), Some("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
/// # Ok::<(), gdvariant_multiplayer::websocket::Error>(())
/// ```
pub fn parse_response(input: &[u8]) -> Result<Option<(Response<'_>, usize)>> {
    let Some((start, headers, len)) = split_head(input, b"HTTP/1.1 ")? else {
        return Ok(None);
    };
    let bad = Error::new(ErrorKind::BadStartLine, 0);
    let rest = &start[9..];
    let (code, reason) = rest.split_once(' ').unwrap_or((rest, ""));
    if code.len() != 3 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad);
    }
    let status = code.bytes().fold(0u16, |n, b| n * 10 + u16::from(b - b'0'));
    if status == 101 {
        let at = start.len() as u64 + 2;
        let missing = |h| Error::new(ErrorKind::MissingHeader(h), at);
        if !headers.has_token("Upgrade", "websocket") {
            return Err(missing("Upgrade: websocket"));
        }
        if !headers.has_token("Connection", "upgrade") {
            return Err(missing("Connection: Upgrade"));
        }
        if headers
            .get("Sec-WebSocket-Accept")
            .map_or(true, str::is_empty)
        {
            return Err(missing("Sec-WebSocket-Accept"));
        }
    }
    Ok(Some((
        Response {
            status,
            reason,
            headers,
        },
        len,
    )))
}

/// Reads a request or a response, whichever `input` starts with.
pub fn parse_head(input: &[u8]) -> Result<Option<(Head<'_>, usize)>> {
    if input.first() == Some(&b'H') {
        Ok(parse_response(input)?.map(|(r, n)| (Head::Response(r), n)))
    } else {
        Ok(parse_request(input)?.map(|(r, n)| (Head::Request(r), n)))
    }
}

/// Whether a stream starting with `input` is a WebSocket handshake: a whole upgrade request, a
/// whole `101` response with the upgrade's headers, the start of one (a prefix of `GET ` or
/// `HTTP/1.1 `, or an HTTP head not yet ended), or something else. For content-based detection of
/// a TCP stream; a head over [`MAX_HEAD`] bytes is [`Sniff::No`].
///
/// ```
/// use gdvariant_multiplayer::websocket::handshake::{sniff, Sniff};
/// assert_eq!(sniff(b"GE"), Sniff::NeedMore);
/// assert_eq!(sniff(b"GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n"), Sniff::No);
/// assert_eq!(sniff(b"\x04\x00\x00\x00\x02\x00\x00\x00"), Sniff::No);
/// ```
pub fn sniff(input: &[u8]) -> Sniff {
    match parse_head(input) {
        Ok(Some((Head::Request(_), _))) => Sniff::Request,
        Ok(Some((Head::Response(r), _))) if r.is_upgrade() => Sniff::Response,
        Ok(Some(_)) | Err(_) => Sniff::No,
        Ok(None) => Sniff::NeedMore,
    }
}

/// The `Sec-WebSocket-Accept` value for a client's `Sec-WebSocket-Key`: base64 of the SHA-1 of
/// the key and RFC 6455's GUID.
pub fn accept_key(key: &str) -> String {
    let mut h = Sha1::new();
    h.update(key.as_bytes());
    h.update(GUID.as_bytes());
    base64(&h.finish())
}

/// Finds the head at the start of `input`, which must start with `prefix`: its start line
/// (without CRLF), its header lines, its whole length.
fn split_head<'a>(input: &'a [u8], prefix: &[u8]) -> Result<Option<(&'a str, Headers<'a>, usize)>> {
    let n = input.len().min(prefix.len());
    if input[..n] != prefix[..n] {
        return Err(Error::new(ErrorKind::NotHttp, 0));
    }
    let window = &input[..input.len().min(MAX_HEAD)];
    let Some(end) = memchr::memmem::find(window, b"\r\n\r\n") else {
        // The start line must be a reasonable one as soon as it is whole.
        if let Some(eol) = memchr::memchr(b'\n', window) {
            if eol == 0 || window[eol - 1] != b'\r' || window[..eol].contains(&0) {
                return Err(Error::new(ErrorKind::BadStartLine, eol as u64));
            }
        }
        if input.len() >= MAX_HEAD {
            return Err(Error::new(ErrorKind::HeadTooLarge { max: MAX_HEAD }, 0));
        }
        return Ok(None);
    };
    let len = end + 4;
    let text = core::str::from_utf8(&input[..len])
        .map_err(|e| Error::new(ErrorKind::HeadNotUtf8, e.valid_up_to() as u64))?;
    // The start line, then header lines each ending with CRLF.
    let first = text.find("\r\n").unwrap_or(end);
    let start = &text[..first];
    if start.len() < prefix.len() || start.contains(['\r', '\n']) {
        return Err(Error::new(ErrorKind::BadStartLine, 0));
    }
    let lines = if first == end {
        ""
    } else {
        &text[first + 2..end + 2]
    };
    let mut at = first + 2;
    for line in lines.split_terminator("\r\n") {
        let ok = match line.split_once(':') {
            Some((name, value)) => {
                !name.is_empty()
                    && name.bytes().all(is_token)
                    && !value.contains(['\r', '\n', '\0'])
            }
            None => false,
        };
        if !ok {
            return Err(Error::new(ErrorKind::BadHeaderLine, at as u64));
        }
        at += line.len() + 2;
    }
    Ok(Some((start, Headers { text: lines }, len)))
}

/// An HTTP token character (RFC 9110 `tchar`), what header names are made of.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ABC[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// SHA-1 (FIPS 180-4), only for the accept key: the handshake's hash, not a security measure.
struct Sha1 {
    state: [u32; 5],
    block: [u8; 64],
    filled: usize,
    len: u64,
}

impl Sha1 {
    fn new() -> Sha1 {
        Sha1 {
            state: [
                0x6745_2301,
                0xEFCD_AB89,
                0x98BA_DCFE,
                0x1032_5476,
                0xC3D2_E1F0,
            ],
            block: [0; 64],
            filled: 0,
            len: 0,
        }
    }

    fn update(&mut self, mut data: &[u8]) {
        self.len = self.len.wrapping_add(data.len() as u64);
        while !data.is_empty() {
            let n = (64 - self.filled).min(data.len());
            self.block[self.filled..self.filled + n].copy_from_slice(&data[..n]);
            self.filled += n;
            data = &data[n..];
            if self.filled == 64 {
                self.compress();
                self.filled = 0;
            }
        }
    }

    fn finish(mut self) -> [u8; 20] {
        let bits = self.len.wrapping_mul(8);
        self.update(&[0x80]);
        while self.filled != 56 {
            self.update(&[0]);
        }
        self.update(&bits.to_be_bytes());
        let mut out = [0; 20];
        for (o, s) in out.chunks_exact_mut(4).zip(self.state) {
            o.copy_from_slice(&s.to_be_bytes());
        }
        out
    }

    fn compress(&mut self) {
        let mut w = [0u32; 80];
        for (i, c) in self.block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([c[0], c[1], c[2], c[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = self.state;
        for (i, &wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (s, v) in self.state.iter_mut().zip([a, b, c, d, e]) {
            *s = s.wrapping_add(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GODOT_REQUEST: &[u8] =
        b"GET / HTTP/1.1\r\nHost: 127.0.0.1:21607\r\nUpgrade: websocket\r\n\
        Connection: Upgrade\r\nSec-WebSocket-Key: vwW7Gl8NHemJYZQGfpGf2Q==\r\n\
        Sec-WebSocket-Version: 13\r\n\r\n";

    #[test]
    fn accept_key_matches_tungstenite() {
        for key in [
            "dGhlIHNhbXBsZSBub25jZQ==",
            "vwW7Gl8NHemJYZQGfpGf2Q==",
            "",
            "x",
        ] {
            let want = tungstenite::handshake::derive_accept_key(key.as_bytes());
            assert_eq!(accept_key(key), want, "key {key:?}");
        }
        // Keys long enough to cross SHA-1 block boundaries.
        for n in [0, 19, 20, 55, 56, 64, 100, 200] {
            let key: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            let want = tungstenite::handshake::derive_accept_key(key.as_bytes());
            assert_eq!(accept_key(&key), want, "length {n}");
        }
    }

    #[test]
    fn request_every_prefix_needs_more() {
        for n in 0..GODOT_REQUEST.len() {
            assert_eq!(parse_request(&GODOT_REQUEST[..n]), Ok(None), "prefix {n}");
            assert_eq!(sniff(&GODOT_REQUEST[..n]), Sniff::NeedMore, "prefix {n}");
        }
        let (r, n) = parse_request(GODOT_REQUEST).unwrap().unwrap();
        assert_eq!(n, GODOT_REQUEST.len());
        assert_eq!(r.key(), "vwW7Gl8NHemJYZQGfpGf2Q==");
        assert_eq!(r.version(), Some("13"));
        assert_eq!(r.protocols(), None);
        assert_eq!(r.headers().iter().count(), 5);
        assert_eq!(sniff(GODOT_REQUEST), Sniff::Request);
    }

    #[test]
    fn request_errors_say_what() {
        let kind = |b: &[u8]| parse_request(b).unwrap_err().kind();
        assert_eq!(kind(b"\x82\x04"), ErrorKind::NotHttp);
        assert_eq!(kind(b"GET / HTTP/1.0\r\n\r\n"), ErrorKind::BadStartLine);
        assert_eq!(kind(b"GET  HTTP/1.1\r\n\r\n"), ErrorKind::BadStartLine);
        assert_eq!(kind(b"GET / HTTP/1.1\n"), ErrorKind::BadStartLine);
        assert_eq!(
            kind(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
            ErrorKind::MissingHeader("Upgrade: websocket")
        );
        assert_eq!(
            kind(
                b"GET / HTTP/1.1\r\nUpgrade: WebSocket\r\nConnection: keep-alive, upgrade\r\n\r\n"
            ),
            ErrorKind::MissingHeader("Sec-WebSocket-Key")
        );
        let e = parse_request(b"GET / HTTP/1.1\r\nHost: x\r\n bad\r\n\r\n").unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::BadHeaderLine, 25));
        let e = parse_request(b"GET / HTTP/1.1\r\nB\xffd: x\r\n\r\n").unwrap_err();
        assert_eq!((e.kind(), e.offset()), (ErrorKind::HeadNotUtf8, 17));
        let mut long = b"GET / HTTP/1.1\r\n".to_vec();
        while long.len() < MAX_HEAD {
            long.extend_from_slice(b"X-Padding: 0123456789\r\n");
        }
        assert_eq!(kind(&long), ErrorKind::HeadTooLarge { max: MAX_HEAD });
        assert_eq!(sniff(&long), Sniff::No);
    }

    #[test]
    fn response_and_accepts() {
        let resp = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
            Connection: Upgrade\r\nSec-WebSocket-Accept: ThUPz2E3f18RdjgMzZADAKMzTrQ=\r\n\r\n";
        let (r, n) = parse_response(resp).unwrap().unwrap();
        assert_eq!(
            (r.status(), r.reason(), n),
            (101, "Switching Protocols", resp.len())
        );
        let (req, _) = parse_request(GODOT_REQUEST).unwrap().unwrap();
        assert!(r.accepts(&req));
        assert_eq!(sniff(resp), Sniff::Response);
        let (r, _) = parse_response(b"HTTP/1.1 404 Not Found\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(!r.is_upgrade() && !r.accepts(&req));
        assert_eq!(sniff(b"HTTP/1.1 404 Not Found\r\n\r\n"), Sniff::No);
        let e =
            parse_response(b"HTTP/1.1 101 OK\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n");
        assert_eq!(
            e.unwrap_err().kind(),
            ErrorKind::MissingHeader("Sec-WebSocket-Accept")
        );
        assert_eq!(
            parse_response(b"HTTP/1.1 1x1 OK\r\n\r\n")
                .unwrap_err()
                .kind(),
            ErrorKind::BadStartLine
        );
    }
}
