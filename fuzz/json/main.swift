import Foundation
import FuzzDriver

exit(Fuzz.run(fuzzJSON))
