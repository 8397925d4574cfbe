//! Mednafen's save-state format, as `retro_serialize` writes it: a 32-byte header ("MDFNSVST", version at
//! 16, total length at 20), then sections, each a 32-byte NUL-padded name and a little-endian `u32` length,
//! holding variables, each a `u8` name length, the name, a `u32` length and the bytes.
use anyhow::{bail, ensure, Context, Result};

const HEADER: usize = 32;
const MAGIC: &[u8; 8] = b"MDFNSVST";

/// One named variable of a section.
#[derive(Debug)]
pub struct Variable<'a> {
    pub name: String,
    pub data: &'a [u8],
}

#[derive(Debug)]
pub struct Section<'a> {
    pub name: String,
    pub variables: Vec<Variable<'a>>,
}

/// A parsed state; it borrows the variables' bytes from the state buffer.
#[derive(Debug)]
pub struct SaveState<'a> {
    pub sections: Vec<Section<'a>>,
}

impl<'a> SaveState<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<SaveState<'a>> {
        ensure!(
            bytes.len() >= HEADER,
            "save state: {} bytes, shorter than the 32-byte header",
            bytes.len()
        );
        ensure!(
            &bytes[..8] == MAGIC,
            "save state: offset 0: expected \"MDFNSVST\", found {:02x?}",
            &bytes[..8]
        );
        let total = read_u32(bytes, 20)? as usize;
        ensure!(
            (HEADER..=bytes.len()).contains(&total),
            "save state: offset 20: total length {total} is outside 32..={}",
            bytes.len()
        );
        let mut sections = Vec::new();
        let mut at = HEADER;
        while at < total {
            ensure!(
                at + 36 <= total,
                "save state: offset {at}: truncated section header"
            );
            let name = padded_name(&bytes[at..at + 32])
                .with_context(|| format!("save state: offset {at}: section name"))?;
            let size = read_u32(bytes, at + 32)? as usize;
            let start = at + 36;
            ensure!(
                size <= total - start,
                "save state: offset {}: section {name:?} claims {size} bytes, only {} remain",
                at + 32,
                total - start
            );
            let variables = parse_variables(&bytes[start..start + size], start)
                .with_context(|| format!("save state: section {name:?}"))?;
            sections.push(Section { name, variables });
            at = start + size;
        }
        Ok(SaveState { sections })
    }

    /// The bytes of `variable` in `section`.
    pub fn variable(&self, section: &str, variable: &str) -> Result<&'a [u8]> {
        let Some(found) = self.sections.iter().find(|s| s.name == section) else {
            let names: Vec<_> = self.sections.iter().map(|s| s.name.as_str()).collect();
            bail!("save state has no section {section:?} (it has {names:?})");
        };
        match found.variables.iter().find(|v| v.name == variable) {
            Some(v) => Ok(v.data),
            None => bail!("save state section {section:?} has no variable {variable:?}"),
        }
    }

    /// A variable that must be exactly `len` bytes long.
    pub fn sized(&self, section: &str, variable: &str, len: usize) -> Result<&'a [u8]> {
        let data = self.variable(section, variable)?;
        ensure!(
            data.len() == len,
            "save state: {section}/{variable} is {} bytes, expected {len}",
            data.len()
        );
        Ok(data)
    }
}

fn parse_variables(body: &[u8], base: usize) -> Result<Vec<Variable<'_>>> {
    let mut variables = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let name_len = body[at] as usize;
        let name_end = at + 1 + name_len;
        ensure!(
            name_end + 4 <= body.len(),
            "offset {}: truncated variable header",
            base + at
        );
        let name = String::from_utf8(body[at + 1..name_end].to_vec())
            .map_err(|_| anyhow::anyhow!("offset {}: variable name is not UTF-8", base + at))?;
        let size = read_u32(body, name_end)? as usize;
        let start = name_end + 4;
        ensure!(
            size <= body.len() - start,
            "offset {}: variable {name:?} claims {size} bytes, only {} remain",
            base + name_end,
            body.len() - start
        );
        variables.push(Variable {
            name,
            data: &body[start..start + size],
        });
        at = start + size;
    }
    Ok(variables)
}

fn padded_name(raw: &[u8]) -> Result<String> {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    ensure!(end > 0, "empty");
    ensure!(
        raw[..end].iter().all(|b| b.is_ascii_graphic()),
        "not printable ASCII: {:02x?}",
        &raw[..end]
    );
    Ok(String::from_utf8_lossy(&raw[..end]).into_owned())
}

fn read_u32(bytes: &[u8], at: usize) -> Result<u32> {
    let Some(raw) = bytes.get(at..at + 4) else {
        bail!("offset {at}: truncated u32")
    };
    Ok(u32::from_le_bytes(raw.try_into().unwrap()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section name and its (variable name, bytes) pairs.
    type SectionSpec<'a> = (&'a str, &'a [(&'a str, &'a [u8])]);

    /// Writes a state in mednafen's layout.
    fn write_state(sections: &[SectionSpec]) -> Vec<u8> {
        let mut out = vec![0u8; HEADER];
        out[..8].copy_from_slice(MAGIC);
        for (name, vars) in sections {
            let mut raw = [0u8; 32];
            raw[..name.len()].copy_from_slice(name.as_bytes());
            out.extend_from_slice(&raw);
            let mut body = Vec::new();
            for (var, data) in *vars {
                body.push(var.len() as u8);
                body.extend_from_slice(var.as_bytes());
                body.extend_from_slice(&(data.len() as u32).to_le_bytes());
                body.extend_from_slice(data);
            }
            out.extend_from_slice(&(body.len() as u32).to_le_bytes());
            out.extend_from_slice(&body);
        }
        let total = out.len() as u32;
        out[20..24].copy_from_slice(&total.to_le_bytes());
        out
    }

    #[test]
    fn finds_variables_by_section_and_name() {
        let ram = [7u8; 16];
        let bytes = write_state(&[
            (
                "CPU",
                &[("GPR", &[1, 2, 3, 4]), ("BACKED_PC", &[0, 0, 1, 0x80])],
            ),
            ("MAIN", &[("CD_TrayOpen", &[1]), ("MainRAM.data8", &ram)]),
        ]);
        let state = SaveState::parse(&bytes).unwrap();
        assert_eq!(state.sections.len(), 2);
        assert_eq!(state.variable("MAIN", "MainRAM.data8").unwrap(), &ram);
        assert_eq!(
            state.sized("CPU", "BACKED_PC", 4).unwrap(),
            &[0, 0, 1, 0x80]
        );
        assert!(state
            .sized("CPU", "BACKED_PC", 8)
            .unwrap_err()
            .to_string()
            .contains("expected 8"));
        assert!(state
            .variable("GPU", "x")
            .unwrap_err()
            .to_string()
            .contains("no section \"GPU\""));
        assert!(state
            .variable("CPU", "x")
            .unwrap_err()
            .to_string()
            .contains("no variable \"x\""));
    }

    #[test]
    fn truncated_or_inconsistent_states_are_errors_not_panics() {
        let bytes = write_state(&[("MAIN", &[("MainRAM.data8", &[0u8; 64])])]);
        assert!(SaveState::parse(&bytes[..10])
            .unwrap_err()
            .to_string()
            .contains("shorter"));
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(SaveState::parse(&bad).is_err());
        // Total length larger than the buffer.
        let mut bad = bytes.clone();
        bad[20..24].copy_from_slice(&10_000u32.to_le_bytes());
        assert!(SaveState::parse(&bad)
            .unwrap_err()
            .to_string()
            .contains("total length"));
        // A variable longer than its section: cut the buffer and fix up the total length.
        let mut bad = bytes.clone();
        bad.truncate(bytes.len() - 8);
        let total = bad.len() as u32;
        bad[20..24].copy_from_slice(&total.to_le_bytes());
        let message = format!("{:#}", SaveState::parse(&bad).unwrap_err());
        assert!(message.contains("claims"), "{message}");
        // Every prefix (with its total patched) parses or fails cleanly.
        for len in HEADER..bytes.len() {
            let mut cut = bytes[..len].to_vec();
            cut[20..24].copy_from_slice(&(len as u32).to_le_bytes());
            let _ = SaveState::parse(&cut);
        }
    }
}
