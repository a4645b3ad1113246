fn main() {
    println!("toss");
}
