#pragma once
// Where downloaded corpora live, and the `corpus:NAME/FILE` form a config uses to name a file
// of one (docs/data.md "Getting the corpora"). A config that reads Multi30k says
// `train_source: corpus:multi30k/train.de.gz`, not a path outside the repository; `fathom data
// get multi30k` puts the files there.
#include <optional>
#include <string>

namespace fathom {

// $FATHOM_DATA, else $XDG_DATA_HOME/fathom/corpora, else $HOME/.local/share/fathom/corpora
// (else <system temp>/fathom-corpora when there is no home).
std::string corpora_home();

// The environment variable that names it, like FATHOM_DB names the store.
inline constexpr const char* kCorporaEnv = "FATHOM_DATA";

// The prefix a config value starts with to name a corpus file.
inline constexpr const char* kCorpusPrefix = "corpus:";

// "corpus:NAME/FILE" -> <corpora_home>/NAME/FILE; nullopt for any other value. Throws
// std::invalid_argument for "corpus:" with no NAME/FILE, or a part that climbs out ("..").
std::optional<std::string> corpus_file_path(const std::string& value);

// When `path` lies in a corpus folder under corpora_home() that is not there, the corpus's
// name (so an error can say `fathom data get NAME`); nullopt otherwise.
std::optional<std::string> missing_corpus_of(const std::string& path);

}  // namespace fathom
