//! Strict parsing of cuprum's environment variables.

use crate::error::{Result, bail};

/// Reads a boolean variable: unset or empty → `default`; `1`/`true` → true; `0`/`false` →
/// false (case-insensitive); anything else is an error naming the variable (unlike CuPy,
/// where any non-empty value, even `0`, may turn an option on).
///
pub(crate) fn env_bool(name: &str, default: bool) -> Result<bool> {
    match std::env::var(name) {
        Err(std::env::VarError::NotPresent) => Ok(default),
        Err(std::env::VarError::NotUnicode(v)) => {
            bail!(
                InvalidArgument,
                "{name}={v:?} is not valid: expected 1, 0, true or false"
            )
        }
        Ok(v) => parse_bool(name, &v, default),
    }
}

pub(crate) fn parse_bool(name: &str, v: &str, default: bool) -> Result<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "" => Ok(default),
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        _ => bail!(
            InvalidArgument,
            "{name}={v:?} is not valid: expected 1, 0, true or false"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_booleans() {
        assert!(parse_bool("X", "1", false).unwrap());
        assert!(parse_bool("X", "TRUE", false).unwrap());
        assert!(!parse_bool("X", "0", true).unwrap());
        assert!(!parse_bool("X", "false", true).unwrap());
        assert!(parse_bool("X", "", true).unwrap());
        let e = parse_bool("CUPRUM_CACHE_IN_MEMORY", "yes", false).unwrap_err();
        assert_eq!(e.kind(), crate::ErrorKind::InvalidArgument);
        assert_eq!(
            e.to_string(),
            "CUPRUM_CACHE_IN_MEMORY=\"yes\" is not valid: expected 1, 0, true or false"
        );
    }
}
