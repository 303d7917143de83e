package offline

import (
	"strings"

	"github.com/agentmem/agentmem/pkg/text/en"
)

// The word lists below are general English: function words, inflections of
// common verbs, a small type lexicon of everyday categories and a gazetteer of
// countries, continents and well-known world cities. None is drawn from, or
// fitted to, any evaluation data.

// set builds a lookup set from space-separated words; "_" joins the words of
// a multiword entry.
func set(lists ...string) map[string]bool {
	m := map[string]bool{}
	for _, l := range lists {
		for _, w := range strings.Fields(l) {
			m[strings.ReplaceAll(w, "_", " ")] = true
		}
	}
	return m
}

var (
	determiners = set(`a an the this that these those another every each either neither some any no
		all both half several many much more most few fewer less least enough such what which whatever whichever`)
	possessives  = set(`my our your his her their its whose`)
	prepositions = set(`about above across after against along amid among around as at before behind below beneath
		beside besides between beyond by despite down during except for from in inside into like near of off on onto
		out outside over past per since than through throughout till to toward towards under underneath unlike until
		up upon via with within without`)
	conjunctions = set(`and or but nor so yet because although though while whereas unless if whether once
		than that when whenever where wherever why how then also plus cause cuz`)
	wh = set(`what which who whom whose when where why how`)

	// auxiliaries and modals, after clitics are expanded.
	beForms    = set(`am is are was were be been being 'm 're`)
	haveForms  = set(`have has had having 've`)
	doForms    = set(`do does did doing done`)
	modals     = set(`will would shall should can could may might must 'll 'd wo ca gonna wanna gotta ought`)
	negations  = set(`not n't never no`)
	copulaLike = set(`seem seems seemed feel feels felt look looks looked become becomes became get gets got sound sounds sounded`)

	adverbs = set(`really just also always never ever finally recently still usually often even already sometimes
		totally definitely probably maybe perhaps actually literally basically honestly seriously truly simply
		again too very so quite pretty rather almost nearly only mostly mainly especially particularly barely hardly
		soon now then later once twice together alone back away here there anyway anyhow kinda sorta super
		absolutely certainly surely clearly obviously apparently currently originally eventually initially lately
		constantly regularly occasionally rarely seldom frequently generally typically normally gladly happily
		sadly unfortunately fortunately luckily hopefully thankfully definitely def tho though instead otherwise
		yet first last next well else somehow somewhat anymore everywhere somewhere anywhere nowhere`)

	// evaluative and other common adjectives: not topics on their own.
	adjectives = set(`good great awesome amazing cool nice fine bad terrible awful horrible wonderful fantastic
		fabulous lovely beautiful gorgeous pretty cute sweet kind happy sad glad proud excited exciting tired
		busy sorry sure interesting boring fun funny hard easy difficult tough important special big small little
		huge tiny large long short old new young best better worse worst favorite favourite real true whole
		same different other own certain main major minor free full empty high low early late ready able
		awesome incredible impressive inspiring inspired powerful meaningful helpful thankful grateful
		stressful peaceful relaxing relaxed calm crazy wild perfect okay ok alright right wrong cool chill
		scary nervous anxious worried upset angry mad jealous lucky unlucky lonely brave strong weak
		healthy sick ill hungry thirsty cozy comfy comfortable uncomfortable hot cold warm cool dark bright
		quick slow fast smart clever wise silly stupid weird strange odd unique rare common popular famous
		amazing stunning breathtaking memorable unforgettable supportive positive negative emotional
		overwhelming overwhelmed swamped stressed blessed fulfilling rewarding challenging tough`)

	interjections = set(`hey hi hello hiya yo wow whoa oh ooh ah aw aww awww yay yeah yes yep yup no nope nah
		ok okay hmm hm um uh lol lmao omg haha hahaha thanks thank thx ty congrats congratulations bye goodbye
		cheers sure please sorry welcome well wait dear gosh geez damn darn ugh oops great cool nice awesome
		amazing wonderful indeed absolutely totally exactly right true agreed good morning evening night`)

	// generic nouns that make poor topics or entities on their own.
	genericNouns = set(`thing things stuff lot lots bit kind sort type way ways time times day days one ones
		something anything everything nothing someone anyone everyone nobody somebody anybody everybody
		part piece place idea fact point case reason matter deal end start side stuff moment moments while
		today tonight tomorrow yesterday week weekend month year years people person guy guys folks
		fun chance experience feeling feelings sense news update updates question questions answer
		situation kinds sorts number amount level bunch couple few world life`)

	honorifics = set(`mr mrs ms miss mx dr doctor prof professor sir madam madame dame lord lady captain capt
		coach officer sgt sergeant rev reverend father sister brother aunt uncle grandma grandpa granny
		president senator governor mayor judge king queen prince princess saint`)

	// words introducing a person by relation: "my sister Ana".
	relationNouns = set(`mom mother mum mommy mama dad father daddy papa parent parents sister sis brother bro
		sibling siblings son daughter kid kids child children baby babies wife husband spouse partner
		boyfriend girlfriend fiance fiancee fiancé fiancée grandma grandmother grandpa grandfather granny
		grandparent grandparents grandson granddaughter grandchild grandchildren grandkids aunt uncle
		cousin niece nephew stepmom stepdad stepmother stepfather stepson stepdaughter in-law mother-in-law
		father-in-law sister-in-law brother-in-law friend friends bestie bff buddy pal mate roommate
		flatmate neighbor neighbour boss manager coworker co-worker colleague classmate teammate mentor
		mentee teacher coach therapist doctor student students client clients ex`)

	occupations = set(`teacher nurse doctor physician surgeon dentist vet veterinarian engineer developer
		programmer designer artist painter sculptor musician singer songwriter composer guitarist drummer
		pianist violinist dancer actor actress writer author poet journalist editor reporter photographer
		filmmaker director producer chef cook baker waiter waitress bartender barista cashier lawyer attorney
		judge accountant banker economist scientist researcher professor lecturer student pharmacist
		therapist counselor counsellor psychologist psychiatrist social_worker firefighter police_officer
		officer soldier pilot driver mechanic electrician plumber carpenter builder architect farmer
		gardener florist librarian manager entrepreneur consultant analyst salesperson marketer recruiter
		realtor secretary receptionist assistant intern volunteer activist coach trainer athlete player
		streamer youtuber blogger influencer model tailor hairdresser stylist translator interpreter
		paramedic midwife caregiver nanny babysitter clerk janitor technician mathematician historian
		biologist chemist physicist astronaut veteran retiree freelancer`)

	statusAdjectives = set(`married single divorced widowed engaged pregnant retired unemployed employed
		vegan vegetarian pescatarian sober allergic diabetic introverted extroverted introvert extrovert
		transgender gay lesbian bisexual queer nonbinary non-binary religious christian muslim jewish
		hindu buddhist atheist left-handed right-handed bilingual adopted homeschooled`)

	// verbs saying that their subject is a person.
	personVerbs = set(`say says said tell tells told ask asks asked reply replies replied think thinks thought
		feel feels felt believe believes believed text texts texted call calls called mention mentions mentioned
		explain explains explained suggest suggests suggested wonder wonders wondered`)

	// verbs taking an infinitive: "want to learn".
	catenatives = set(`want wants wanted need needs needed plan plans planned decide decides decided try tries tried
		start starts started begin begins began begun like likes liked love loves loved hate hates hated hope hopes
		hoped learn learns learned learnt choose chose chosen agree agreed promise promised forget forgot
		remember remembered manage managed continue continued prefer preferred expect expected wish wished
		intend intended used going got get gets have has had afford afforded refuse refused offer offered
		volunteer volunteered aim aimed attempt attempted prepare prepared seem seemed deserve pretend
		would_like`)

	// verbs taking two objects: "gave my sister a book".
	ditransitives = set(`give gave given send sent tell told show showed shown buy bought bring brought teach
		taught offer offered lend lent write wrote make made get got pass passed hand handed cook cooked bake baked`)

	likeVerbs    = set(`love loves loved adore adores adored like likes liked enjoy enjoys enjoyed prefer prefers preferred`)
	dislikeVerbs = set(`hate hates hated dislike dislikes disliked detest detests detested loathe loathes loathed`)
	wantVerbs    = set(`want wants wanted wish wishes wished hope hopes hoped`)

	titleCues = map[string]string{
		"book": "book", "books": "book", "novel": "book", "novels": "book", "read": "book", "reading": "book",
		"reads": "book", "author": "book", "memoir": "book", "reread": "book", "rereads": "book", "rereading": "book",
		"copy": "book", "copies": "book", "audiobook": "book", "paperback": "book", "hardcover": "book", "series": "show", "show": "show", "shows": "show",
		"movie": "movie", "movies": "movie", "film": "movie", "films": "movie", "watched": "movie", "watch": "movie",
		"watching": "movie", "documentary": "movie", "song": "song", "songs": "song", "track": "song",
		"album": "album", "band": "band", "listening": "song", "listened": "song", "sang": "song",
		"game": "game", "games": "game", "podcast": "podcast", "play": "play", "musical": "play", "poem": "poem",
		"painting": "artwork", "paintings": "artwork", "artwork": "artwork", "magazine": "magazine",
	}

	// suffix words of organization and place names, with the types they give.
	nameHeads = map[string][]string{
		"inc": {"organization", "company"}, "corp": {"organization", "company"}, "corporation": {"organization", "company"},
		"company": {"organization", "company"}, "co": {"organization", "company"}, "llc": {"organization", "company"},
		"ltd": {"organization", "company"}, "group": {"organization"}, "labs": {"organization", "company"},
		"studio": {"organization", "studio"}, "studios": {"organization", "studio"}, "records": {"organization", "label"},
		"airlines": {"organization", "airline"}, "bank": {"organization", "bank"}, "press": {"organization", "publisher"},
		"university": {"organization", "school"}, "college": {"organization", "school"}, "school": {"organization", "school"},
		"academy": {"organization", "school"}, "institute": {"organization", "institute"}, "foundation": {"organization"},
		"association": {"organization"}, "society": {"organization"}, "club": {"organization", "club"},
		"team": {"organization", "team"}, "agency": {"organization"}, "department": {"organization"},
		"council": {"organization"}, "church": {"place", "church"}, "hospital": {"place", "hospital"},
		"clinic": {"place", "clinic"}, "museum": {"place", "museum"}, "gallery": {"place", "gallery"},
		"library": {"place", "library"}, "center": {"place"}, "centre": {"place"}, "theater": {"place", "theater"},
		"theatre": {"place", "theater"}, "stadium": {"place", "stadium"}, "cafe": {"place", "cafe"},
		"restaurant": {"place", "restaurant"}, "hotel": {"place", "hotel"}, "mall": {"place", "mall"},
		"city": {"place", "city"}, "town": {"place", "town"}, "village": {"place", "village"}, "county": {"place", "county"},
		"state": {"place", "state"}, "province": {"place", "province"}, "river": {"place", "river"},
		"lake": {"place", "lake"}, "mountain": {"place", "mountain"}, "mountains": {"place", "mountain"},
		"park": {"place", "park"}, "street": {"place", "street"}, "avenue": {"place", "street"}, "road": {"place", "street"},
		"boulevard": {"place", "street"}, "beach": {"place", "beach"}, "island": {"place", "island"},
		"islands": {"place", "island"}, "bay": {"place", "bay"}, "valley": {"place", "valley"}, "canyon": {"place", "canyon"},
		"falls": {"place", "waterfall"}, "forest": {"place", "forest"}, "desert": {"place", "desert"},
		"square": {"place", "square"}, "bridge": {"place", "bridge"}, "airport": {"place", "airport"},
		"station": {"place", "station"}, "coast": {"place", "coast"}, "sea": {"place", "sea"}, "ocean": {"place", "ocean"},
		"hills": {"place"}, "heights": {"place"}, "springs": {"place"}, "harbor": {"place"}, "harbour": {"place"},
		"zoo": {"place", "zoo"}, "festival": {"event", "festival"}, "conference": {"event", "conference"},
		"marathon": {"event", "race"}, "cup": {"event"}, "championship": {"event"}, "day": {"event", "holiday"},
	}
	// prefix words of place names: "Mount Fuji", "Lake Tahoe".
	namePrefixes = map[string][]string{
		"mount": {"place", "mountain"}, "mt": {"place", "mountain"}, "lake": {"place", "lake"},
		"fort": {"place"}, "port": {"place"}, "san": {"place"}, "santa": {"place"},
		"saint": {"place"}, "st": {"place"}, "university": {"organization", "school"},
	}

	languages = set(`english spanish french german italian portuguese chinese mandarin cantonese japanese korean
		arabic hindi urdu bengali russian ukrainian polish dutch swedish norwegian danish finnish greek turkish
		hebrew persian farsi vietnamese thai indonesian malay tagalog swahili latin czech hungarian romanian
		irish welsh catalan`)
	nationalities = set(`american canadian mexican brazilian argentinian argentine colombian peruvian chilean
		cuban british scottish australian indian pakistani chinese japanese korean filipino vietnamese thai
		german french italian spanish portuguese dutch swedish norwegian danish finnish polish russian
		ukrainian greek turkish irish egyptian nigerian kenyan ethiopian south_african moroccan israeli
		iranian iraqi syrian lebanese saudi european asian african latino latina hispanic`)

	continents = set(`africa antarctica asia australia europe north_america south_america oceania
		latin_america middle_east scandinavia caribbean`)
	countries = set(`afghanistan albania algeria andorra angola argentina armenia australia austria azerbaijan
		bahamas bahrain bangladesh barbados belarus belgium belize benin bhutan bolivia bosnia botswana brazil
		brunei bulgaria burundi cambodia cameroon canada chad chile china colombia congo costa_rica croatia
		cuba cyprus czechia czech_republic denmark dominican_republic ecuador egypt el_salvador england estonia
		ethiopia fiji finland france gabon gambia georgia germany ghana greece greenland guatemala guinea haiti
		honduras hong_kong hungary iceland india indonesia iran iraq ireland israel italy jamaica japan jordan
		kazakhstan kenya korea south_korea north_korea kosovo kuwait laos latvia lebanon liberia libya
		liechtenstein lithuania luxembourg madagascar malawi malaysia maldives mali malta mexico moldova monaco
		mongolia montenegro morocco mozambique myanmar namibia nepal netherlands holland new_zealand nicaragua
		niger nigeria norway oman pakistan panama paraguay peru philippines poland portugal puerto_rico qatar
		romania russia rwanda saudi_arabia scotland senegal serbia singapore slovakia slovenia somalia
		south_africa spain sri_lanka sudan sweden switzerland syria taiwan tanzania thailand tibet togo tunisia
		turkey uganda ukraine united_arab_emirates uae united_kingdom uk united_states usa us america uruguay
		uzbekistan venezuela vietnam wales yemen zambia zimbabwe`)
	cities = set(`london paris berlin madrid barcelona rome milan venice florence naples lisbon porto amsterdam
		brussels vienna prague budapest warsaw krakow copenhagen stockholm oslo helsinki dublin edinburgh
		glasgow manchester liverpool athens istanbul moscow kyiv kiev zurich geneva munich hamburg frankfurt
		lyon marseille nice seville valencia new_york los_angeles san_francisco chicago boston seattle
		portland miami orlando atlanta dallas houston austin denver phoenix las_vegas san_diego philadelphia
		washington nashville new_orleans detroit minneapolis honolulu toronto vancouver montreal ottawa
		mexico_city havana bogota lima santiago buenos_aires rio_de_janeiro sao_paulo tokyo kyoto osaka seoul
		beijing shanghai hong_kong taipei bangkok singapore manila jakarta bali hanoi mumbai delhi new_delhi
		bangalore dubai abu_dhabi doha cairo marrakech cape_town johannesburg nairobi lagos sydney melbourne
		brisbane perth auckland wellington jerusalem tel_aviv reykjavik`)
	usStates = set(`alabama alaska arizona arkansas california colorado connecticut delaware florida hawaii
		idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota
		mississippi missouri montana nebraska nevada new_hampshire new_jersey new_mexico north_carolina
		north_dakota ohio oklahoma oregon pennsylvania rhode_island south_carolina south_dakota tennessee
		texas utah vermont virginia west_virginia wisconsin wyoming`)

	months = map[string]int{"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
		"apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9,
		"sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12}
	weekdays = set(`monday tuesday wednesday thursday friday saturday sunday tues thurs
		mondays tuesdays wednesdays thursdays fridays saturdays sundays`)
	seasons   = set(`spring summer fall autumn winter`)
	timeUnits = map[string]string{"second": "second", "seconds": "second", "sec": "second", "secs": "second",
		"minute": "minute", "minutes": "minute", "min": "minute", "mins": "minute", "hour": "hour", "hours": "hour",
		"hr": "hour", "hrs": "hour", "day": "day", "days": "day", "week": "week", "weeks": "week",
		"fortnight": "fortnight", "month": "month", "months": "month", "year": "year", "years": "year",
		"yr": "year", "yrs": "year", "decade": "decade", "decades": "decade", "century": "century", "centuries": "century"}
	// words that, after last/next/this/every, name a time.
	timeNouns = set(`morning afternoon evening night weekend week month year summer winter spring fall autumn
		semester term season holiday holidays vacation time weekday weekends`)
	timeWords = set(`yesterday today tonight tomorrow recently lately nowadays earlier someday sometime soon
		christmas xmas halloween thanksgiving easter`)
	// time words that make an action future or past.
	futureCues = set(`tomorrow next soon upcoming coming later someday sometime`)
	pastCues   = set(`yesterday last ago earlier recently lately past`)

	// measurement units and the facet or parameter name they give.
	units = map[string]string{"km": "distance", "kms": "distance", "kilometer": "distance", "kilometers": "distance",
		"kilometre": "distance", "kilometres": "distance", "mile": "distance", "miles": "distance", "meter": "distance",
		"meters": "distance", "metre": "distance", "metres": "distance", "m": "distance", "feet": "distance",
		"foot": "distance", "ft": "distance", "inch": "distance", "inches": "distance", "cm": "distance",
		"kg": "weight", "kgs": "weight", "kilo": "weight", "kilos": "weight", "kilogram": "weight", "kilograms": "weight",
		"pound": "weight", "pounds": "weight", "lb": "weight", "lbs": "weight", "gram": "weight", "grams": "weight",
		"g": "weight", "ounce": "weight", "ounces": "weight", "oz": "weight", "ton": "weight", "tons": "weight",
		"dollar": "price", "dollars": "price", "bucks": "price", "euro": "price", "euros": "price", "usd": "price",
		"eur": "price", "gbp": "price", "cents": "price", "k": "amount", "percent": "percentage", "%": "percentage",
		"degrees": "temperature", "degree": "temperature", "liter": "volume", "liters": "volume", "litre": "volume",
		"litres": "volume", "gallon": "volume", "gallons": "volume", "ml": "volume", "calories": "energy",
		"steps": "steps", "laps": "laps", "reps": "repetitions", "pages": "pages", "times": "times"}

	numberWords = map[string]float64{"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
		"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
		"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
		"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
		"thousand": 1000, "dozen": 12, "a": 1, "an": 1, "couple": 2, "few": 3, "several": 3}

	abbreviations = set(`mr mrs ms dr prof st jr sr vs etc e.g i.e approx mt ave rd no dept est inc corp ltd co fig`)
)

// categories is the small type lexicon: a general noun and the types its
// entities get ("puppy" is a dog and an animal, "sister" a person).
var categories = map[string][]string{}

func cat(types string, words string) {
	ts := strings.Fields(types)
	for _, w := range strings.Fields(words) {
		w = strings.ReplaceAll(w, "_", " ")
		if _, ok := categories[w]; !ok {
			categories[w] = ts
		}
	}
}

func init() {
	cat("dog animal", `dog puppy pup doggy doggo retriever labrador poodle beagle terrier bulldog husky corgi
		dachshund shepherd chihuahua pug`)
	cat("cat animal", `cat kitten kitty`)
	cat("animal", `horse pony bird parrot budgie canary chicken hen duck goose fish goldfish rabbit bunny hamster
		guinea_pig gerbil mouse rat ferret turtle tortoise snake lizard gecko iguana frog cow pig goat sheep lamb
		donkey llama alpaca deer bear wolf fox lion tiger elephant giraffe zebra monkey dolphin whale shark
		owl eagle hawk butterfly bee squirrel raccoon otter penguin koala kangaroo pet pets animal animals`)
	cat("sport", `soccer football basketball baseball tennis golf hockey volleyball rugby cricket badminton
		softball lacrosse boxing wrestling karate judo taekwondo jiu-jitsu fencing archery bowling skiing
		snowboarding surfing skateboarding swimming running jogging cycling biking hiking climbing
		rock_climbing bouldering kayaking canoeing rowing sailing diving snorkeling marathon triathlon
		yoga pilates crossfit weightlifting gymnastics skating ice_skating martial_arts ping_pong pickleball`)
	cat("instrument", `piano guitar violin viola cello bass drums drum flute clarinet saxophone sax trumpet
		trombone tuba harp ukulele banjo mandolin harmonica accordion keyboard synthesizer oboe xylophone`)
	cat("food", `pizza pasta spaghetti lasagna sushi ramen noodles rice bread sandwich burger hamburger hot_dog
		taco tacos burrito salad soup steak chicken fish salmon shrimp cheese chocolate cake cupcake cookie
		cookies pie pancake pancakes waffle waffles ice_cream donut doughnut croissant bagel muffin curry
		dumplings fries barbecue bbq vegetables fruit apple apples banana bananas strawberry strawberries
		blueberries mango avocado tomato potato potatoes eggs egg bacon cereal oatmeal yogurt popcorn
		candy dessert brownies pastry pastries lemonade smoothie`)
	cat("drink", `coffee tea wine beer whiskey vodka cocktail cocktails juice soda milk latte cappuccino espresso
		matcha kombucha water`)
	cat("activity hobby", `painting drawing sketching reading writing journaling cooking baking gardening
		photography knitting crocheting sewing quilting pottery ceramics sculpting woodworking camping fishing
		hunting traveling travelling dancing singing gaming chess birdwatching meditation volunteering
		scrapbooking calligraphy origami collecting blogging vlogging podcasting hiking art music poetry`)
	cat("vehicle", `car truck van suv motorcycle motorbike bike bicycle scooter boat yacht kayak canoe rv
		camper bus train plane jeep tesla minivan`)
	cat("book", `book novel memoir biography cookbook comic comics manga poem poetry_book textbook`)
	cat("movie", `movie film documentary`)
	cat("show", `show series sitcom podcast`)
	cat("music", `song album concert band playlist`)
	cat("game", `game videogame video_game boardgame board_game puzzle`)
	cat("artwork", `painting paintings sculpture mural portrait drawing sketch photo photograph picture
		pictures photos artwork poster`)
	cat("device", `phone smartphone iphone laptop computer tablet ipad camera headphones tv television console
		watch smartwatch`)
	cat("place", `park beach museum library gym school university college church hospital restaurant cafe
		bar pub office home house apartment flat city town village lake river mountain mountains forest
		garden zoo farm store shop mall market airport station studio theater theatre stadium campus
		neighborhood neighbourhood countryside island coast downtown backyard cabin cottage hotel clinic
		gallery bakery`)
	cat("event", `wedding birthday party concert festival conference trip vacation holiday marathon race
		graduation meeting interview class workshop course lesson lessons seminar retreat reunion
		ceremony parade fundraiser exhibition exhibit show game match tournament competition recital
		performance funeral picnic barbecue camping_trip road_trip date anniversary celebration
		event events`)
	cat("group organization", `group club team community organization charity nonprofit church band choir
		support_group book_club`)
	cat("clothing", `shirt dress shoes sneakers jacket coat hat scarf jeans sweater hoodie boots`)
	cat("plant", `flower flowers plant plants tree trees roses rose garden succulents`)
	for w := range relationNouns {
		if _, ok := categories[w]; !ok {
			categories[w] = []string{"person"}
		}
	}
	for w := range occupations {
		if _, ok := categories[w]; !ok {
			categories[w] = []string{"person", "occupation"}
		}
	}
	for _, b := range en.IrregularBases() {
		baseVerbs[b] = true
	}
	for _, w := range strings.Fields(regularVerbs) {
		baseVerbs[w] = true
	}
	delete(baseVerbs, "born")
}

// ownedKinds are the categories a possessive makes "owned": "my car" gets
// an owner facet; "my sister" a relation facet instead.
var ownedKinds = set(`animal vehicle instrument device clothing`)

// regularVerbs are common verbs with regular inflections.
var regularVerbs = `accept achieve act add adopt agree allow announce answer apply appreciate arrange arrive ask
	attend avoid bake ban believe belong book borrow bother call care carry celebrate change chat check cheer
	clean climb close coach collect compete complain complete consider contact continue cook cope copy count
	cover crash create cry cycle dance date decide decorate deliver describe design destroy develop die
	discover discuss donate dress drop earn edit employ encourage end enjoy enter escape establish explain
	explore express face fail fill film finish fix focus follow gain garden graduate greet guess hate head
	help hike hire hope host hug hunt imagine improve include inspire introduce invite involve join joke
	jump kick kill kiss knit label land last laugh launch learn like list listen live load look love manage
	mark marry match matter mention miss move name need notice offer open order organize organise own paint
	park pass perform pick plan plant play post practice practise pray prefer prepare present pretend print
	produce promise protect prove publish pull push race rain raise reach realize realise receive recommend
	record recover reduce refuse relax release remember remind remove rent repair reply report rescue
	research rest retire return reveal review ride sail save scare score search serve share shop sign sketch
	ski skate smile snowboard solve start stay step stop struggle study submit succeed suffer suggest
	support suppose surf surprise talk taste text thank touch tour train travel treat try turn type use
	vacation visit vote wait walk want warn wash watch welcome wish wonder work worry yell volunteer
	bike jog camp fish hike kayak paddle sew bake decorate foster rescue nurse apply interview audition
	compose record edit draft graduate enroll enrol sign register mentor tutor babysit renovate redecorate
	adore dislike detest loathe crave miss admire respect trust doubt fear cherish treasure value
	celebrate host attend organize participate compete qualify train coach practise rehearse perform`

// baseVerbs are the verbs the lexicon knows: the irregular ones
// (en.IrregularBases) and regularVerbs.
var baseVerbs = map[string]bool{}
