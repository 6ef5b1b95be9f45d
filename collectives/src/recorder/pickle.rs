//! The part of Python's pickle format (protocol 2) that PyTorch's flight-recorder
//! dumps use: dicts, lists, tuples, text, integers, booleans and `None`. Written from
//! the format's opcode table; no memo (every value is written once, and a reader needs
//! no back-references).

/// A value to pickle.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    None,
    Bool(bool),
    Int(i64),
    Str(String),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    /// Keys and values in the order they are written (Python keeps that order).
    Dict(Vec<(Value, Value)>),
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Int(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::None, Into::into)
    }
}

/// A dict with text keys, in the order given.
pub(crate) fn dict<const N: usize>(items: [(&str, Value); N]) -> Value {
    Value::Dict(items.into_iter().map(|(k, v)| (k.into(), v)).collect())
}

// The opcodes used (names as in Python's pickletools).
const PROTO: u8 = 0x80;
const STOP: u8 = b'.';
const NONE: u8 = b'N';
const NEWTRUE: u8 = 0x88;
const NEWFALSE: u8 = 0x89;
const BININT: u8 = b'J';
const LONG1: u8 = 0x8a;
const BINUNICODE: u8 = b'X';
const EMPTY_LIST: u8 = b']';
const APPENDS: u8 = b'e';
const EMPTY_DICT: u8 = b'}';
const SETITEMS: u8 = b'u';
const MARK: u8 = b'(';
const TUPLE: u8 = b't';

/// `value` as a complete pickle (protocol 2), readable by `pickle.load`.
pub(crate) fn to_bytes(value: &Value) -> Vec<u8> {
    let mut out = vec![PROTO, 2];
    write(value, &mut out);
    out.push(STOP);
    out
}

fn write(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::None => out.push(NONE),
        Value::Bool(true) => out.push(NEWTRUE),
        Value::Bool(false) => out.push(NEWFALSE),
        Value::Int(n) => match i32::try_from(*n) {
            Ok(small) => {
                out.push(BININT);
                out.extend_from_slice(&small.to_le_bytes());
            }
            Err(_) => {
                // Two's complement, little-endian, as few bytes as keep the sign.
                let mut bytes = n.to_le_bytes().to_vec();
                while bytes.len() > 1 {
                    let last = bytes[bytes.len() - 1];
                    let sign_of_next = bytes[bytes.len() - 2] & 0x80;
                    if (last == 0 && sign_of_next == 0) || (last == 0xff && sign_of_next != 0) {
                        bytes.pop();
                    } else {
                        break;
                    }
                }
                out.push(LONG1);
                out.push(bytes.len() as u8);
                out.extend_from_slice(&bytes);
            }
        },
        Value::Str(s) => {
            out.push(BINUNICODE);
            // Dump text is far below 4 GiB; longer text is cut (never a bad pickle).
            let bytes = &s.as_bytes()[..s.len().min(u32::MAX as usize)];
            let bytes = match std::str::from_utf8(bytes) {
                Ok(_) => bytes,
                Err(e) => &bytes[..e.valid_up_to()],
            };
            out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            out.extend_from_slice(bytes);
        }
        Value::List(items) => {
            out.push(EMPTY_LIST);
            if !items.is_empty() {
                out.push(MARK);
                items.iter().for_each(|v| write(v, out));
                out.push(APPENDS);
            }
        }
        Value::Tuple(items) => {
            out.push(MARK);
            items.iter().for_each(|v| write(v, out));
            out.push(TUPLE);
        }
        Value::Dict(items) => {
            out.push(EMPTY_DICT);
            if !items.is_empty() {
                out.push(MARK);
                for (k, v) in items {
                    write(k, out);
                    write(v, out);
                }
                out.push(SETITEMS);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_have_the_opcodes_of_protocol_2() {
        assert_eq!(to_bytes(&Value::None), b"\x80\x02N.");
        assert_eq!(to_bytes(&true.into()), b"\x80\x02\x88.");
        assert_eq!(to_bytes(&false.into()), b"\x80\x02\x89.");
        assert_eq!(to_bytes(&Value::Int(-2)), b"\x80\x02J\xfe\xff\xff\xff.");
        assert_eq!(to_bytes(&"ab".into()), b"\x80\x02X\x02\x00\x00\x00ab.");
    }

    #[test]
    fn integers_past_32_bits_are_the_shortest_twos_complement() {
        // 2^31 needs a zero byte on top to stay positive; -2^31-1 fits 5 bytes.
        assert_eq!(
            to_bytes(&Value::Int(1 << 31)),
            b"\x80\x02\x8a\x05\x00\x00\x00\x80\x00."
        );
        assert_eq!(
            to_bytes(&Value::Int(-(1 << 31) - 1)),
            b"\x80\x02\x8a\x05\xff\xff\xff\x7f\xff."
        );
        assert_eq!(
            to_bytes(&Value::Int(i64::MAX)),
            b"\x80\x02\x8a\x08\xff\xff\xff\xff\xff\xff\xff\x7f."
        );
        assert_eq!(
            to_bytes(&Value::Int(i64::MIN)),
            b"\x80\x02\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80."
        );
    }

    #[test]
    fn containers_nest_with_marks() {
        let v = dict([
            ("k", Value::List(vec![Value::Int(1), Value::Tuple(vec![])])),
            ("e", Value::Dict(vec![])),
        ]);
        assert_eq!(
            to_bytes(&v),
            b"\x80\x02}(X\x01\x00\x00\x00k](J\x01\x00\x00\x00(teX\x01\x00\x00\x00e}u."
        );
        assert_eq!(to_bytes(&Value::List(vec![])), b"\x80\x02].");
    }
}
