import Foundation
import FuzzDriver

exit(Fuzz.run(fuzzJournal))
